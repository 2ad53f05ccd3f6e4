import { QueryClient } from '@tanstack/query-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTasksStore } from '../../tracker/task-store';
import type { TaskTracker } from '../../tracker/tracker';
import type { InboxRequest } from '../messages';
import type { HistoryDb, HistoryWrite } from '.';
import { HistoryRecorder } from './recorder';

afterEach(() => {
  vi.useRealTimers();
});

function recorder() {
  const writes: HistoryWrite[] = [];
  const db = {
    write: async (_receiver: string, write: HistoryWrite) => {
      writes.push(write);
      return { ok: true as const };
    },
  } as unknown as HistoryDb;
  const tracker = { store: createTasksStore() } as unknown as TaskTracker;
  const rec = new HistoryRecorder(db, 'http://r.test/mcp', tracker, new QueryClient(), 1, () => {});
  return { rec, writes };
}

const question = { key: 'q1', method: 'elicitation/create' } as unknown as InboxRequest;

describe('HistoryRecorder', () => {
  it('batches traffic into one write a quarter second later', async () => {
    vi.useFakeTimers();
    const { rec, writes } = recorder();
    rec.setMeta({ server: 'a' });
    await vi.advanceTimersByTimeAsync(200);
    expect(writes).toHaveLength(0);
    rec.setMeta({ other: 'b' });
    await vi.advanceTimersByTimeAsync(50);
    expect(writes).toHaveLength(1);
    expect(writes[0]?.meta).toEqual({ server: 'a', other: 'b' });
  });

  it('writes a question at once, with whatever was waiting, so a reload right after it finds it', async () => {
    vi.useFakeTimers();
    const { rec, writes } = recorder();
    rec.setMeta({ server: 'a' });
    await vi.advanceTimersByTimeAsync(10);
    rec.addInbox({ kind: 'asked', request: question });
    await vi.advanceTimersByTimeAsync(0);
    expect(writes).toHaveLength(1);
    expect(writes[0]?.inbox).toEqual([{ kind: 'asked', request: question }]);
    expect(writes[0]?.meta).toEqual({ server: 'a' });
    rec.addInbox({ kind: 'settled', key: 'q1', state: 'answered', outcome: 'accept' });
    await vi.advanceTimersByTimeAsync(0);
    expect(writes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(250);
    expect(writes).toHaveLength(2);
  });
});
