/**
 * What one write transaction does for one receiver: put the folded plan, then trim every store back within
 * its cap in the same transaction, so a crash or a failing put never leaves the history past its caps.
 */

import { unwrap, type IDBPTransaction } from 'idb';
import { forTrafficLog } from '../../mcp';
import type { HistoryCaps } from './history-types';
import { redactForStorage, redactTrafficEvent } from './redact';
import {
  entriesBelow,
  newMeta,
  receiverRange,
  sequenceBelow,
  taskEntriesRange,
  type HistorySchema,
  type MetaRow,
  type StoreName,
  type TaskRow,
} from './schema';
import type { ReceiverPlan } from './write-plan';

export type WriteTx = IDBPTransaction<HistorySchema, StoreName[], 'readwrite'>;

/**
 * Puts and deletes go to the raw stores without a promise each: a failing request aborts the transaction, so
 * its `done` reports every failure, and a thousand-task write spends its time in IndexedDB, not in promises.
 */
export async function applyPlan(
  tx: WriteTx,
  receiver: string,
  plan: ReceiverPlan,
  caps: HistoryCaps,
): Promise<void> {
  const meta = (await tx.objectStore('meta').get(receiver)) ?? newMeta();

  if (plan.tasks.size > 0) {
    const tasks = tx.objectStore('tasks');
    const rawTasks = unwrap(tasks);
    const entries = unwrap(tx.objectStore('entries'));
    const results = unwrap(tx.objectStore('results'));
    const plans = [...plan.tasks.values()];
    const rows = await Promise.all(plans.map((p) => tasks.get([receiver, p.taskId])));
    const now = Date.now();
    let added = false;
    plans.forEach((task, i) => {
      const existing = rows[i];
      const record = task.record ?? existing?.record;
      // A snapshot or result for a task never recorded would be an orphan no cap or load ever reaches.
      if (!record) return;
      const { taskId } = task;
      const entryTotal = task.entryTotal ?? existing?.entryTotal ?? 0;
      // Fewer entries than stored: an older copy (another tab that restored this task before it went on).
      // The stored one is newer; writing this back would undo that tab's timeline.
      if (existing && existing.entryTotal > entryTotal) return;
      const row: TaskRow = {
        receiver,
        taskId,
        seq: existing?.seq ?? meta.nextTaskSeq++,
        record: task.record ? redactForStorage(task.record) : record,
        entryTotal,
        snapshot: task.snapshot ? redactForStorage(task.snapshot) : existing?.snapshot,
        touchedAt: now,
      };
      if (!existing) added = true;
      rawTasks.put(row);
      const floor = entryTotal - caps.maxEntriesPerTask;
      if (existing) {
        if (floor > Math.max(0, existing.entryTotal - caps.maxEntriesPerTask))
          entries.delete(entriesBelow(receiver, taskId, floor));
      }
      for (const [index, entry] of task.entries) {
        if (index >= floor && index < entryTotal)
          entries.put(redactForStorage(entry), [receiver, taskId, index]);
      }
      if (task.result) results.put(redactForStorage(task.result), [receiver, taskId]);
    });
    if (added) await capTasks(tx, receiver, meta, caps);
  }

  if (plan.traffic.length > 0) {
    const traffic = unwrap(tx.objectStore('traffic'));
    const skip = Math.max(0, plan.traffic.length - caps.maxTraffic);
    let key = meta.nextTraffic + skip;
    for (const event of plan.traffic.slice(skip))
      traffic.put(redactTrafficEvent(forTrafficLog(event)), [receiver, key++]);
    meta.nextTraffic += plan.traffic.length;
    if (meta.nextTraffic > caps.maxTraffic)
      traffic.delete(sequenceBelow(receiver, meta.nextTraffic - caps.maxTraffic));
  }

  if (plan.inbox.length > 0) {
    const inbox = unwrap(tx.objectStore('inbox'));
    const skip = Math.max(0, plan.inbox.length - caps.maxInbox);
    let key = meta.nextInbox + skip;
    for (const event of plan.inbox.slice(skip)) inbox.put(redactForStorage(event), [receiver, key++]);
    meta.nextInbox += plan.inbox.length;
    if (meta.nextInbox > caps.maxInbox) inbox.delete(sequenceBelow(receiver, meta.nextInbox - caps.maxInbox));
  }

  if (plan.meta) meta.facts = { ...meta.facts, ...redactForStorage(plan.meta) };
  unwrap(tx.objectStore('meta')).put(meta, receiver);
}

/** Past maxTasks, the oldest tasks that are not live go, with everything kept for them. */
async function capTasks(tx: WriteTx, receiver: string, meta: MetaRow, caps: HistoryCaps): Promise<void> {
  const tasks = tx.objectStore('tasks');
  let excess = (await tasks.count(receiverRange(receiver))) - caps.maxTasks;
  if (excess <= 0) return;
  let cursor = await tasks.index('order').openCursor(receiverRange(receiver));
  while (cursor && excess > 0) {
    const row = cursor.value;
    if (row.record.lifecycle !== 'live') {
      deleteTask(tx, receiver, row.taskId);
      meta.droppedTasks++;
      excess--;
    }
    cursor = await cursor.continue();
  }
}

/** A task lives in three stores; the cap, a clear and a forget all drop it from each. */
export function deleteTask(tx: WriteTx, receiver: string, taskId: string): void {
  unwrap(tx.objectStore('tasks')).delete([receiver, taskId]);
  unwrap(tx.objectStore('results')).delete([receiver, taskId]);
  unwrap(tx.objectStore('entries')).delete(taskEntriesRange(receiver, taskId));
}
