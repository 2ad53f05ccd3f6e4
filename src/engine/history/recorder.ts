import type { QueryClient } from '@tanstack/query-core';
import type { Normalised, TaskResultSnapshot, TrafficEvent } from '../../mcp';
import { TaskChangeCollector } from '../../tracker/task-changes';
import { queryKeys } from '../../tracker/queries';
import type { TaskTracker } from '../../tracker/tracker';
import type { HistoryDb, HistoryWrite } from '.';
import type { HistoryNews, InboxEvent } from '../messages';

/** Writes go out at most this often: a thousand polls a second become one transaction, not a thousand. */
const WRITE_EVERY_MS = 250;
/** Traffic and inbox events waiting for the next write, at most; the oldest go first. */
const MAX_PENDING = 2000;

/**
 * Keeps one connection's observations in IndexedDB as they happen: the tracker's task records as deltas
 * (the same collector that feeds the page), snapshots and results as they change, traffic and inbox events.
 * A full quota stops writing and is said once; what the page shows is never touched by a failed write.
 */
export class HistoryRecorder {
  private readonly collector = new TaskChangeCollector();
  private readonly snapshots = new Set<string>();
  private readonly results = new Set<string>();
  private traffic: TrafficEvent[] = [];
  private inbox: InboxEvent[] = [];
  private meta: Record<string, unknown> | undefined;
  private tasksDirty = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> = Promise.resolve();
  private stopped = false;
  private disposed = false;
  private lastAtOnce = -Infinity;

  constructor(
    private readonly db: HistoryDb,
    private readonly receiver: string,
    private readonly tracker: TaskTracker,
    private readonly queryClient: QueryClient,
    private readonly connectionId: number,
    private readonly report: (news: HistoryNews) => void,
  ) {}

  /** Restored tasks are history already: the first write must not copy them back whole. */
  skipRestored(): void {
    this.collector.collect(this.tracker.store.getState());
  }

  tasksChanged(): void {
    this.tasksDirty = true;
    this.schedule();
  }
  snapshotChanged(taskId: string): void {
    this.snapshots.add(taskId);
    this.schedule();
  }
  resultChanged(taskId: string): void {
    this.results.add(taskId);
    this.schedule();
  }
  addTraffic(event: TrafficEvent): void {
    this.traffic.push(event);
    if (this.traffic.length > MAX_PENDING) this.traffic.splice(0, this.traffic.length - MAX_PENDING);
    this.schedule();
  }
  addInbox(event: InboxEvent): void {
    this.inbox.push(event);
    if (this.inbox.length > MAX_PENDING) this.inbox.splice(0, this.inbox.length - MAX_PENDING);
    // A question waits for the person, who may reload the moment it shows: it is written now, not a batch
    // later — once per batch period at most, so a receiver that asks without end cannot make a write each.
    const now = Date.now();
    if (event.kind === 'asked' && now - this.lastAtOnce >= WRITE_EVERY_MS) {
      this.lastAtOnce = now;
      this.schedule(0);
    } else this.schedule();
  }
  setMeta(meta: Record<string, unknown>): void {
    this.meta = { ...this.meta, ...meta };
    this.schedule();
  }

  /** Writes what is pending now; resolves when it (and any write before it) is done. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const write = this.take();
    if (write) this.writing = this.writing.then(() => this.write(write));
    return this.writing;
  }

  /** Forgets this receiver's stored history except `keep` (live tasks), and starts writing again. */
  async clear(keep: readonly string[]): Promise<void> {
    await this.flush();
    this.traffic = [];
    this.inbox = [];
    await this.db.clear(this.receiver, keep);
    if (this.stopped) {
      this.stopped = false;
      this.report({ state: 'on' });
    }
    // What is left on the page is written again whole, so the store and the page agree.
    this.collector.collect({ ...this.tracker.store.getState(), tasks: new Map(), order: [] });
    this.tasksDirty = true;
    this.schedule();
  }

  dispose(): Promise<void> {
    const done = this.flush();
    this.disposed = true;
    return done;
  }

  private schedule(ms = WRITE_EVERY_MS): void {
    if (this.disposed || this.stopped) return;
    if (this.timer !== undefined) {
      if (ms >= WRITE_EVERY_MS) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => void this.flush(), ms);
  }

  private take(): HistoryWrite | null {
    if (this.stopped) return null;
    const state = this.tracker.store.getState();
    const changes = this.tasksDirty ? this.collector.collect(state) : null;
    this.tasksDirty = false;
    const tasks: HistoryWrite['tasks'] = [];
    for (const { task, newEntries } of changes?.changes ?? []) {
      // Another tab's task is that tab's to record; writing our older copy back would undo its entries.
      if (task.otherSession) continue;
      const entries = state.tasks.get(task.taskId)?.entries.length ?? newEntries.length;
      tasks.push({ record: task, newEntries, entryTotal: task.droppedEntries + entries });
    }
    const snapshots: HistoryWrite['snapshots'] = [];
    for (const taskId of this.snapshots) {
      const snapshot = this.tracker.snapshot(taskId);
      if (snapshot) snapshots.push([taskId, snapshot]);
    }
    const results: HistoryWrite['results'] = [];
    for (const taskId of this.results) {
      const result = this.queryClient.getQueryData<Normalised<TaskResultSnapshot>>(
        queryKeys.taskResult(this.connectionId, taskId),
      );
      if (result) results.push([taskId, result]);
    }
    this.snapshots.clear();
    this.results.clear();
    const write: HistoryWrite = {
      tasks,
      snapshots,
      results,
      traffic: this.traffic,
      inbox: this.inbox,
      ...(this.meta ? { meta: this.meta } : {}),
    };
    this.traffic = [];
    this.inbox = [];
    this.meta = undefined;
    const empty =
      tasks.length + snapshots.length + results.length + write.traffic.length + write.inbox.length === 0 &&
      !write.meta;
    return empty ? null : write;
  }

  private async write(write: HistoryWrite): Promise<void> {
    const outcome = await this.db.write(this.receiver, write);
    if (outcome.ok) return;
    if (outcome.reason === 'quota') {
      this.stopped = true;
      this.report({
        state: 'full',
        message: `${outcome.message} Taskscope stopped saving history for this receiver; what is shown stays. Clear makes room.`,
      });
    } else this.report({ state: 'error', message: outcome.message });
  }
}
