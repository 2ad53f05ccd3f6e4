import { describe, expect, it } from 'vitest';
import { evaluateReport } from './evaluate';
import type { ObservationEntry, TimelineEntry } from '../tracker/task-store';
import { oneTaskReport } from '../../test/helpers/task-records';

const createdAt = new Date(1000).toISOString();
const obs = (at: number, fields: Partial<ObservationEntry> = {}): ObservationEntry => ({
  kind: 'observation',
  at,
  source: 'poll',
  sentAt: at - 5,
  status: 'completed',
  createdAt,
  ttl: 4000,
  warnings: [],
  ...fields,
});
const rule = (id: string, entries: TimelineEntry[]) =>
  evaluateReport({ ...oneTaskReport(entries), now: 60_000 }).rules.find((r) => r.id === id)!;

describe('the ttl rules’ words', () => {
  it('a task kept long past its ttl: the receiver is named as keeping it, and why that is only a SHOULD', () => {
    // Expires at 5 s; still answered completed at 36 s.
    const kept = rule('ttl-not-kept-beyond', [
      obs(1000, { source: 'create', status: 'working' }),
      obs(36_000),
    ]);
    expect(kept.verdict).toBe('warn');
    expect(kept.reason).toBe(
      'The receiver kept 1 task well after its ttl ran out: receivers SHOULD clean up expired tasks promptly (a while is allowed).',
    );
    expect(kept.firstOffence?.detail).toMatch(/^the receiver still kept it 31 s after its ttl ran out/);
  });

  it('one task purged early reads as one: its ttl, not their ttl', () => {
    const input = oneTaskReport([
      obs(1000, { source: 'create', status: 'working', ttl: 60_000 }),
      { kind: 'purged', at: 3000, error: { kind: 'purged', message: 'gone' } },
    ]);
    input.tasks = [...input.tasks].map((t) => ({ ...t, lifecycle: 'purged' as const }));
    const early = evaluateReport(input).rules.find((r) => r.id === 'ttl-not-purged-early')!;
    expect(early.verdict).toBe('fail');
    expect(early.reason).toBe('1 task was gone (-32602) before its ttl ran out.');
  });
});
