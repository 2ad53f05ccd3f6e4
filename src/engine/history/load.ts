/**
 * Loading reads back within today's caps, not those the rows were written under: caps may have been lowered
 * since, and the page must never receive more than it would have kept itself.
 */

import type { IDBPTransaction } from 'idb';
import type { HistoryCaps, LoadedHistory, LoadedTask } from './history-types';
import {
  entriesFrom,
  newMeta,
  receiverRange,
  sequenceFrom,
  type HistorySchema,
  type StoreName,
} from './schema';

export async function readHistory(
  tx: IDBPTransaction<HistorySchema, StoreName[], 'readonly'>,
  receiver: string,
  caps: HistoryCaps,
): Promise<LoadedHistory> {
  const done = tx.done;
  done.catch(() => undefined);
  const meta = (await tx.objectStore('meta').get(receiver)) ?? newMeta();
  const rows = await tx.objectStore('tasks').index('order').getAll(receiverRange(receiver));
  // Caps lowered since the rows were written: load within them anyway, live tasks first to stay.
  let excess = rows.length - caps.maxTasks;
  const kept = excess <= 0 ? rows : rows.filter((row) => row.record.lifecycle === 'live' || excess-- <= 0);
  const entries = tx.objectStore('entries');
  const results = tx.objectStore('results');
  const tasks = await Promise.all(
    kept.map(async (row): Promise<LoadedTask> => {
      const from = Math.max(0, row.entryTotal - caps.maxEntriesPerTask);
      const [list, result] = await Promise.all([
        entries.getAll(entriesFrom(receiver, row.taskId, from)),
        results.get([receiver, row.taskId]),
      ]);
      const timeline = list.slice(-caps.maxEntriesPerTask);
      const task: LoadedTask = {
        // Entries a failed write never stored count as dropped, so the two sides keep agreeing on the total.
        record: { ...row.record, droppedEntries: Math.max(0, row.entryTotal - timeline.length) },
        entries: timeline,
      };
      if (row.snapshot) task.snapshot = row.snapshot;
      if (result) task.result = result;
      return task;
    }),
  );
  const [traffic, inbox] = await Promise.all([
    tx.objectStore('traffic').getAll(sequenceFrom(receiver, Math.max(0, meta.nextTraffic - caps.maxTraffic))),
    tx.objectStore('inbox').getAll(sequenceFrom(receiver, Math.max(0, meta.nextInbox - caps.maxInbox))),
  ]);
  await done;
  return {
    tasks,
    traffic: traffic.slice(-caps.maxTraffic),
    inbox: inbox.slice(-caps.maxInbox),
    meta: meta.facts,
    droppedTasks: meta.droppedTasks + (rows.length - kept.length),
  };
}
