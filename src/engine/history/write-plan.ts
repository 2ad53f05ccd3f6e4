/**
 * Writes pile up behind a running transaction; folding them per receiver first means one task changed many
 * times is read and put once, and the next transaction touches only the stores something is written to.
 */

import type { Normalised, TaskResultSnapshot, TaskSnapshot, TrafficEvent } from '../../mcp';
import type { TimelineEntry, TrackedTask } from '../../tracker/task-store';
import type { InboxEvent } from '../messages';
import type { HistoryWrite } from './history-types';
import type { StoreName } from './schema';

/** Everything queued for one receiver, folded together: one task's several changes become one plan. */
export interface TaskPlan {
  taskId: string;
  record?: Omit<TrackedTask, 'entries'>;
  entryTotal?: number;
  entries: Array<[index: number, entry: TimelineEntry]>;
  snapshot?: TaskSnapshot;
  result?: Normalised<TaskResultSnapshot>;
}

export interface ReceiverPlan {
  tasks: Map<string, TaskPlan>;
  traffic: TrafficEvent[];
  inbox: InboxEvent[];
  meta?: Record<string, unknown>;
}

function planFor(plans: Map<string, TaskPlan>, taskId: string): TaskPlan {
  let plan = plans.get(taskId);
  if (!plan) {
    plan = { taskId, entries: [] };
    plans.set(taskId, plan);
  }
  return plan;
}

/** Later writes win for records, snapshots and results; entries keep their own indices, so none is lost. */
function planWrites(writes: readonly HistoryWrite[]): ReceiverPlan {
  const plan: ReceiverPlan = { tasks: new Map(), traffic: [], inbox: [] };
  for (const write of writes) {
    for (const { record, newEntries, entryTotal } of write.tasks ?? []) {
      const task = planFor(plan.tasks, record.taskId);
      task.record = record;
      task.entryTotal = entryTotal;
      const first = entryTotal - newEntries.length;
      newEntries.forEach((entry, i) => task.entries.push([first + i, entry]));
    }
    for (const [taskId, snapshot] of write.snapshots ?? []) planFor(plan.tasks, taskId).snapshot = snapshot;
    for (const [taskId, result] of write.results ?? []) planFor(plan.tasks, taskId).result = result;
    if (write.traffic?.length) plan.traffic.push(...write.traffic);
    if (write.inbox?.length) plan.inbox.push(...write.inbox);
    if (write.meta) plan.meta = { ...plan.meta, ...write.meta };
  }
  return plan;
}

function isEmptyPlan(plan: ReceiverPlan): boolean {
  return plan.tasks.size === 0 && plan.traffic.length === 0 && plan.inbox.length === 0 && !plan.meta;
}

/**
 * One plan per receiver with anything to write, in the order receivers first appear, and the stores they
 * need (meta always). Throws on a malformed write; the caller turns that into an outcome.
 */
export function planReceivers(jobs: ReadonlyArray<{ receiver: string; write: HistoryWrite }>): {
  plans: Array<[string, ReceiverPlan]>;
  stores: Set<StoreName>;
} {
  const byReceiver = new Map<string, HistoryWrite[]>();
  for (const { receiver, write } of jobs) {
    const list = byReceiver.get(receiver);
    if (list) list.push(write);
    else byReceiver.set(receiver, [write]);
  }
  const plans: Array<[string, ReceiverPlan]> = [];
  const stores = new Set<StoreName>(['meta']);
  for (const [receiver, writes] of byReceiver) {
    const plan = planWrites(writes);
    if (isEmptyPlan(plan)) continue;
    plans.push([receiver, plan]);
    if (plan.tasks.size > 0) for (const s of ['tasks', 'entries', 'results'] as const) stores.add(s);
    if (plan.traffic.length > 0) stores.add('traffic');
    if (plan.inbox.length > 0) stores.add('inbox');
  }
  return { plans, stores };
}
