/**
 * One observed client session, as the page shows it: its tasks built from what passed (ObservedFeed → the
 * records a replay builds, RecordedTasks), its traffic as the log's rows, and the questions its server asked the
 * client (2025-11-25 elicitation and sampling tied to a task), shown with what the client answered — never
 * answerable here: Taskscope sends nothing in the client's session. Time is the live clock: each entry carries
 * the time its message passed, and countdowns run on the page's clock as for a live task.
 */
import type { QueryClient } from '@tanstack/query-core';
import {
  isObject,
  limitJson,
  relatedTaskId,
  type SeenMessage,
  type TrafficEvent,
  type TrafficSeqCounter,
} from '../../mcp';
import { createQueryClient } from '../../tracker/queries';
import type { InboxEvent } from '../messages';
import type { TaskParts } from '../outbox';
import { TaskPartsMarks } from '../task-parts';
import type { PageTaskView } from '../task-views';
import { RecordedTasks } from '../trace/replay-records';
import { ObservedFeed } from './observed-feed';
import { ObservedTraffic } from './observed-traffic';

/** Server requests waiting for the client's answer; older ones are let go. */
const MAX_ASKED = 1_000;

export interface ObservedOutput {
  traffic: (event: TrafficEvent) => void;
  inbox: (event: InboxEvent) => void;
  /** Something for the next batch changed (tasks, snapshots, results). */
  changed: () => void;
}

interface Asked {
  key: string;
  method: string;
  taskId: string;
}

export class ObservedView {
  readonly queryClient: QueryClient = createQueryClient({ sharing: false });
  readonly tasks: RecordedTasks;
  private readonly feed = new ObservedFeed();
  private readonly traffic: ObservedTraffic;
  private readonly marks = new TaskPartsMarks();
  private readonly asked = new Map<string, Asked>();
  private readonly stops: Array<() => void> = [];
  /** The messages read already: a session's list may grow in the middle (an exchange moved into it). */
  private readonly read = new WeakSet<SeenMessage>();

  constructor(
    /** The client session shown (rules/client-sessions.ts keys). */
    public key: string,
    readonly connectionId: number,
    seqs: TrafficSeqCounter,
    upstream: string,
    private readonly out: ObservedOutput,
  ) {
    this.tasks = new RecordedTasks(this.queryClient, connectionId);
    this.traffic = new ObservedTraffic(seqs, connectionId, upstream);
    this.stops.push(
      this.tasks.store.subscribe(() => {
        this.marks.tasksChanged();
        this.out.changed();
      }),
      this.queryClient.getQueryCache().subscribe((event) => {
        if (this.marks.cacheChanged(event)) this.out.changed();
      }),
    );
  }

  /** The session's messages as split so far: those not read yet are read, in the order given. */
  readAll(messages: readonly SeenMessage[]): void {
    for (const seen of messages) {
      if (this.read.has(seen)) continue;
      this.read.add(seen);
      this.readOne(seen);
    }
  }

  takeTaskParts(view: PageTaskView): TaskParts {
    return this.marks.take(this.tasks, this.queryClient, this.connectionId, view, Date.now());
  }

  taskCount(): number {
    return this.tasks.store.getState().order.length;
  }

  dispose(): void {
    for (const stop of this.stops) stop();
    this.queryClient.clear();
  }

  private readOne(seen: SeenMessage): void {
    this.out.traffic(this.traffic.event(seen));
    this.inbox(seen);
    for (const effect of this.feed.push(seen)) {
      if (effect.kind === 'appear') this.tasks.appear(effect.task);
      else if (effect.kind === 'result-sent') this.tasks.resultSent(effect.task);
      else this.tasks.apply(effect.task, effect.entry, undefined, false);
    }
  }

  /** A server's request tied to a task, and the client's answer to it. */
  private inbox(seen: SeenMessage): void {
    const m = seen.message;
    if (!isObject(m) || (typeof m.id !== 'string' && typeof m.id !== 'number')) return;
    // The client answers on an HTTP exchange of its own: the server's request id alone pairs them.
    const id = `${typeof m.id}:${String(m.id)}`;
    if (seen.from === 'server' && typeof m.method === 'string') {
      const params = isObject(m.params) ? m.params : {};
      const taskId = relatedTaskId(params);
      // The questions a task asks (related-task `_meta`); a server's ping or roots/list is traffic only.
      if (taskId === undefined) return;
      const key = `observed:${this.connectionId}:${seen.exchange ?? ''}:${id}`;
      this.asked.set(id, { key, method: m.method, taskId });
      if (this.asked.size > MAX_ASKED) this.asked.delete(this.asked.keys().next().value as string);
      this.out.inbox({
        kind: 'asked',
        request: {
          key,
          connectionId: this.connectionId,
          requestId: m.id,
          method: m.method.slice(0, 200),
          params: limitJson(params, { maxDepth: 32, maxNodes: 5_000 }).value as Record<string, unknown>,
          relatedTaskId: taskId,
          receivedAt: seen.wallTime,
        },
      });
      this.noteInput(taskId, { at: seen.wallTime, method: m.method, phase: 'asked' });
      return;
    }
    if (seen.from !== 'client' || typeof m.method === 'string') return;
    const asked = this.asked.get(id);
    if (!asked) return;
    this.asked.delete(id);
    const error = isObject(m.error) ? m.error : undefined;
    const result = isObject(m.result) ? m.result : {};
    const action = typeof result.action === 'string' ? result.action.slice(0, 40) : undefined;
    const outcome = error ? 'refused by the client' : `answered by the client${action ? `: ${action}` : ''}`;
    const reply = error
      ? {
          error: {
            code: typeof error.code === 'number' ? error.code : 0,
            message: typeof error.message === 'string' ? error.message.slice(0, 500) : '',
          },
        }
      : { result: limitJson(result, { maxDepth: 32, maxNodes: 5_000 }).value as Record<string, unknown> };
    this.out.inbox({ kind: 'settled', key: asked.key, state: 'answered', outcome, at: seen.wallTime, reply });
    this.noteInput(asked.taskId, {
      at: seen.wallTime,
      method: asked.method,
      phase: 'answered',
      detail: action,
    });
  }

  private noteInput(
    taskId: string,
    entry: { at: number; method: string; phase: 'asked' | 'answered'; detail?: string },
  ): void {
    const task = this.feed.task(taskId);
    if (!task) return;
    this.tasks.apply(task, { kind: 'input', ...entry }, undefined, false);
  }
}
