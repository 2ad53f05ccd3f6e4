/**
 * Clearing and forgetting are what a person asks for, not what a cap decides: a clear keeps the tasks the page
 * still shows and the receiver's facts, forgetting a receiver keeps nothing, and neither may touch another's rows.
 */

import { unwrap } from 'idb';
import { receiverRange } from './schema';
import { deleteTask, type WriteTx } from './write-tx';

/** Everything of `receiver` but the tasks in `keepTaskIds` and its facts; the dropped-task count starts over. */
export async function clearReceiver(
  tx: WriteTx,
  receiver: string,
  keepTaskIds: readonly string[],
): Promise<void> {
  const done = tx.done;
  done.catch(() => undefined);
  try {
    const range = receiverRange(receiver);
    unwrap(tx.objectStore('traffic')).delete(range);
    unwrap(tx.objectStore('inbox')).delete(range);
    const keep = new Set(keepTaskIds);
    if (keep.size === 0) {
      for (const store of ['tasks', 'entries', 'results'] as const)
        unwrap(tx.objectStore(store)).delete(range);
    } else {
      const keys = await tx.objectStore('tasks').getAllKeys(range);
      for (const [, taskId] of keys) if (!keep.has(taskId)) deleteTask(tx, receiver, taskId);
    }
    const meta = await tx.objectStore('meta').get(receiver);
    if (meta) unwrap(tx.objectStore('meta')).put({ ...meta, droppedTasks: 0 }, receiver);
  } catch (error) {
    try {
      tx.abort();
    } catch {
      // Already aborted by the failing request.
    }
    throw error;
  }
  await done;
}

/** Every store's rows of `receiver`, its facts too. */
export async function deleteReceiver(tx: WriteTx, receiver: string): Promise<void> {
  const range = receiverRange(receiver);
  await Promise.all([
    tx.objectStore('tasks').delete(range),
    tx.objectStore('entries').delete(range),
    tx.objectStore('results').delete(range),
    tx.objectStore('traffic').delete(range),
    tx.objectStore('inbox').delete(range),
    tx.objectStore('meta').delete(receiver),
    tx.done,
  ]);
}
