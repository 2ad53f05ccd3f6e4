import { describe, expect, it } from 'vitest';
import type { TimelineEntry } from '../../tracker/task-store';
import { formatClock } from '../../format/time';
import { observationsText, type Row } from './observation-text';

describe('the observation table as text', () => {
  it('is a header line and one tab-separated line per row; a receiver’s tabs and line breaks stay inside their cell', () => {
    const at = Date.UTC(2026, 11, 1, 7, 0, 0, 123);
    const observation: TimelineEntry = {
      kind: 'observation',
      at,
      source: 'poll',
      latencyMs: 41.6,
      status: 'working',
      statusMessage: 'step 2\tof 4\nalmost',
      lastUpdatedAt: '2026-12-01T07:00:00.100Z',
      pollInterval: 500,
      warnings: [{ code: 'bad-timestamp', message: 'odd clock' }],
    } as TimelineEntry;
    const rows: Row[] = [{ entry: observation, source: 'poll #3', changed: true }];
    const lines = observationsText(rows).split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]!.split('\t')).toEqual([
      'local time',
      'server lastUpdatedAt',
      'source',
      'status',
      'pollInterval (ms)',
      'statusMessage / detail',
      'latency (ms)',
    ]);
    expect(lines[1]!.split('\t')).toEqual([
      formatClock(at, { millis: true }),
      '2026-12-01T07:00:00.100Z',
      'poll #3',
      'working',
      '500',
      'step 2 of 4 almost · ⚠ poll #3: odd clock',
      '42',
    ]);
  });
});
