import type { QueryClient } from '@tanstack/query-core';
import { classifyError, type ClassifiedError, type Normalised, type TaskSnapshot } from '../mcp';
import { TaskPoller } from './poller';
import { ResultFetcher } from './result-fetcher';
import {
  appendEntry,
  createTasksStore,
  newTrackedTask,
  updateTask,
  type InputEntry,
  type ObservationSource,
  type TasksStore,
  type TrackedTask,
} from './task-store';
import { AnswerIntake, type AnswerMeta } from './answers';
import { unlimitedScheduler } from './request-scheduler';
import { MAX_POLLED_TASKS } from './limits';
import { PushIntake } from './push-intake';
import { SessionLifecycle } from './tracker-sessions';
import { ActivityIntake } from './tracker-activity';
import { ClockCheck } from './clock-offset';
import { PlainCallGate } from './tracker-plain-calls';
import { TrackerHistory, type RestoredTask } from './tracker-history';
import {
  systemClock,
  type Clock,
  type TaskApiPort,
  type TrackerDeps,
  type TrackerSettings,
} from './tracker-types';

export { systemClock, type Clock, type TaskApiPort, type TrackerDeps, type TrackerSettings };
export type { RestoredTask };

export interface TrackOptions {
  origin: TrackedTask['origin'];
  tool?: string;
  /** The call that created it here (tool, arguments, requested ttl). */
  call?: TrackedTask['call'];
  /** Created by the report card's check, not by the person. */
  startedBy?: TrackedTask['startedBy'];
  /** What the receiver already told us (the create answer, a tasks/list entry, a push). */
  initial?: Normalised<TaskSnapshot | null>;
  source?: ObservationSource;
  sentAt?: number;
}

/**
 * The one place that decides when to ask a receiver about a task, and what its answers mean. The poller
 * (poller.ts) keeps one timer per task; the tracker merges every answer, from polls, pushes, tasks/list or a
 * cancel, into one ordered history, and acts on it: a first terminal status stops polling and fetches the
 * result in the same tick. Pushes update a task at once but never bring its next poll forward.
 */
export class TaskTracker {
  readonly store: TasksStore;
  private readonly api: TaskApiPort;
  private readonly queryClient: QueryClient;
  private readonly connectionId: number;
  private readonly clock: Clock;
  private readonly settings: () => TrackerSettings;
  private readonly poller: TaskPoller;
  private readonly results: ResultFetcher;
  private readonly clockCheck: ClockCheck;
  private readonly sessions: SessionLifecycle;
  private readonly activity: ActivityIntake;
  private readonly history: TrackerHistory;
  private readonly unsubscribe: () => void;
  private disposed = false;
  private readonly snapshots = new Map<string, TaskSnapshot>();
  private readonly maxPolled: number;
  private readonly pushes: PushIntake;
  private readonly openResultForInput: () => boolean;
  private readonly sessionId: () => string | undefined;
  private readonly plainCalls: PlainCallGate;
  private readonly answers: AnswerIntake;

  constructor(deps: TrackerDeps) {
    this.sessionId = deps.sessionId ?? (() => undefined);
    this.api = deps.api;
    this.queryClient = deps.queryClient;
    this.connectionId = deps.connectionId;
    this.store = deps.store ?? createTasksStore();
    this.clock = deps.clock ?? systemClock;
    this.settings = deps.settings ?? (() => ({ paused: false, minPollIntervalMs: 0 }));
    const open = deps.openResultForInput ?? true;
    this.openResultForInput = typeof open === 'function' ? open : () => open;
    this.maxPolled = deps.maxPolledTasks ?? MAX_POLLED_TASKS;
    const scheduler = deps.scheduler ?? unlimitedScheduler();
    this.results = new ResultFetcher({
      ...deps,
      scheduler,
      store: this.store,
      clock: this.clock,
      isDisposed: () => this.disposed,
    });
    this.poller = new TaskPoller({
      ...deps,
      scheduler,
      store: this.store,
      clock: this.clock,
      settings: this.settings,
      sessionId: this.sessionId,
      snapshot: (taskId) => this.snapshot(taskId),
      observe: (taskId, answer, meta) => this.observe(taskId, answer, meta),
    });
    this.plainCalls = new PlainCallGate(this.clock);
    this.pushes = new PushIntake({
      clock: this.clock,
      isTracked: (taskId) => this.poller.has(taskId),
      ignoreUnknown: () => this.plainCalls.quiet(),
      track: (taskId, update) =>
        this.track(taskId, { origin: 'notification', initial: update, source: 'notification' }),
      observe: (taskId, update) => this.observe(taskId, update, { source: 'notification' }),
      untracked: (count) => this.store.setState({ untrackedSeen: count }),
    });
    this.sessions = new SessionLifecycle({
      store: this.store,
      clock: this.clock,
      sessionId: this.sessionId,
      poller: this.poller,
      results: this.results,
      openResultForInput: this.openResultForInput,
    });
    this.activity = new ActivityIntake({
      store: this.store,
      clock: this.clock,
      isTracked: (taskId) => this.poller.has(taskId),
      isDisposed: () => this.disposed,
    });
    this.clockCheck = new ClockCheck(this.store);
    this.answers = new AnswerIntake({
      store: this.store,
      clock: this.clock,
      queryClient: this.queryClient,
      connectionId: this.connectionId,
      snapshots: this.snapshots,
      clockCheck: this.clockCheck,
      sessions: this.sessions,
      poller: this.poller,
      results: this.results,
      openResultForInput: this.openResultForInput,
    });
    this.history = new TrackerHistory({
      store: this.store,
      clock: this.clock,
      connectionId: this.connectionId,
      queryClient: this.queryClient,
      poller: this.poller,
      snapshots: this.snapshots,
      forget: (taskId) => this.sessions.forget(taskId),
    });
    const stopStatus = this.api.onTaskStatus((update) => {
      if (!update.value || this.disposed) return;
      this.pushes.receive(update.value.taskId, update);
    });
    const stopActivity = this.api.onTaskActivity?.((taskId, activity) =>
      this.activity.receive(taskId, activity),
    );
    this.unsubscribe = () => {
      stopStatus();
      stopActivity?.();
    };
  }

  /** Follows the task ids that pushes named beyond the automatic limit, up to `max` of them. */
  trackSeen(max = 1000): number {
    return this.pushes.trackSeen(max);
  }

  /** Stops waiting for this task's open tasks/result, freeing its connection. */
  stopResult(taskId: string): boolean {
    return this.results.stop(taskId);
  }

  /** Polls a live task now, by hand (a receiver that asked for a pollInterval of years, say). */
  pollNow(taskId: string): void {
    const task = this.store.getState().tasks.get(taskId);
    if (task?.lifecycle !== 'live') return;
    // A dormant task (past MAX_POLLED_TASKS) is followed from now on.
    if (task.dormant) updateTask(this.store, taskId, () => ({ dormant: false }));
    void this.poller.poll(taskId);
  }

  /**
   * The latest merged snapshot. The Worker's query cache holds the same object (fetchQuery's data, or
   * setQueryData; its client shares no structure, so it makes no copy); this map is read several times per
   * poll, where hashing a query key each time showed up in profiles.
   */
  snapshot(taskId: string): TaskSnapshot | undefined {
    return this.snapshots.get(taskId);
  }

  isTracked(taskId: string): boolean {
    return this.poller.has(taskId);
  }

  /** Starts following a task. Without an initial snapshot it is polled at once (a pasted id). */
  track(taskId: string, options: TrackOptions): void {
    if (this.disposed) return;
    if (this.poller.has(taskId)) {
      // A push can announce a task before the tools/call that created it has answered: keep what the
      // creator knows (the tool's name) and its answer, without starting a second poller.
      if (options.tool)
        updateTask(this.store, taskId, (t) =>
          t.tool
            ? {}
            : {
                tool: options.tool,
                origin: options.origin,
                call: options.call,
                ...(options.startedBy ? { startedBy: options.startedBy } : {}),
              },
        );
      if (options.initial?.value)
        this.observe(taskId, options.initial, { source: options.source ?? 'create', sentAt: options.sentAt });
      return;
    }
    this.poller.add(taskId);
    this.sessions.tracked(taskId, options.origin);
    // Past MAX_POLLED_TASKS, what a receiver lists or pushes is kept and shown but not polled until a
    // person opens or follows it; what a person creates or pastes is always polled.
    const dormant =
      (options.origin === 'list' || options.origin === 'notification') &&
      this.store.getState().order.length >= this.maxPolled;
    this.store.setState((state) => {
      state.tasks.set(
        taskId,
        newTrackedTask({
          taskId,
          connectionId: this.connectionId,
          tool: options.tool,
          call: options.call,
          origin: options.origin,
          ...(options.startedBy ? { startedBy: options.startedBy } : {}),
          firstSeenAt: this.clock.now(),
          sessionId: this.sessionId(),
          ...(dormant ? { dormant: true } : {}),
        }),
      );
      // In place: a listing of thousands must not copy the order once per task. The page's copy is rebuilt
      // from batches, so nothing there holds on to this array.
      state.order.push(taskId);
      return { version: state.version + 1 };
    });
    this.activity.release(taskId);
    if (options.initial?.value) {
      this.observe(taskId, options.initial, { source: options.source ?? 'create', sentAt: options.sentAt });
      this.poller.schedule(taskId);
    } else if (!dormant) {
      void this.poller.poll(taskId);
    }
  }

  /** tasks/list, every page: tracks what is new, and updates what is known; says why a listing stopped early. */
  async syncList(): Promise<string | undefined> {
    const sentAt = this.clock.now();
    const { tasks, stopped, warningsFor } = await this.api.listTasks();
    for (const snapshot of tasks) {
      const update = { value: snapshot, warnings: warningsFor?.get(snapshot.taskId) ?? [] };
      if (this.poller.has(snapshot.taskId)) this.observe(snapshot.taskId, update, { source: 'list', sentAt });
      else this.track(snapshot.taskId, { origin: 'list', initial: update, source: 'list', sentAt });
    }
    return stopped;
  }

  /**
   * An answer about a tracked task that someone else asked for (the active check's tasks/get and listings):
   * merged and judged as any other observation of the task.
   */
  observeRead(
    taskId: string,
    update: Normalised<TaskSnapshot | null>,
    meta: { source: 'list' | 'check'; sentAt: number },
  ): void {
    if (this.poller.has(taskId)) this.observe(taskId, update, { ...meta, answered: true });
  }

  async cancel(taskId: string): Promise<ClassifiedError | null> {
    const sentAt = this.clock.now();
    try {
      const answer = await this.api.cancelTask(taskId, this.snapshot(taskId));
      this.observe(taskId, answer, { source: 'cancel', sentAt });
      return null;
    } catch (error) {
      // -32602 here usually means the task ended on its own meanwhile; the next poll will tell, so no verdict.
      const classified = classifyError(error, { method: 'tasks/cancel' });
      updateTask(this.store, taskId, (task) => ({
        ...appendEntry(task, {
          kind: 'error',
          at: this.clock.now(),
          sentAt,
          source: 'cancel',
          error: classified,
        }),
      }));
      return classified;
    }
  }

  /**
   * A plain tools/call: a receiver may run it as a task of its own (SDK 1.x's automatic task polling) and
   * push that task's status; while the call is out (and a moment after), a push for an unknown task is not
   * followed, so a plain call never adds a nameless task to the list.
   */
  duringPlainCall<T>(call: () => Promise<T>): Promise<T> {
    return this.plainCalls.during(call);
  }

  /** Records on the task's timeline that the receiver asked a person something, and what became of it. */
  noteInput(taskId: string, entry: Omit<InputEntry, 'kind' | 'at'>): void {
    updateTask(this.store, taskId, (task) =>
      appendEntry(task, { kind: 'input', at: this.clock.now(), ...entry }),
    );
  }

  /** Fetches a result again by hand (e.g. after not-ready); the automatic fetch happens once on its own. */
  refetchResult(taskId: string): void {
    this.results.fetch(taskId, true);
  }

  /** Re-reads settings (pause, user minimum): a pause stops every timer, a resume restarts them from now. */
  settingsChanged(): void {
    this.poller.settingsChanged();
  }

  /** Puts back what history kept (TrackerHistory.restore); polled once sessionReady says whose they are. */
  restore(tasks: readonly RestoredTask[]): void {
    if (this.disposed) return;
    this.history.restore(tasks);
  }

  /** A session is up: SessionLifecycle.ready decides, task by task, what that session means for it. */
  sessionReady(ended?: string): void {
    this.sessions.ready(ended);
  }

  /** The session ended, lost or `final` (by the person): timers stop, the records stay. */
  sessionEnded(options: { final: boolean }): void {
    this.sessions.ended(options);
  }

  /** A task from another session: ask about it in this one (SessionLifecycle.follow). */
  follow(taskId: string): void {
    this.sessions.follow(taskId);
  }

  /** Forgets ended tasks (a person cleared history); live ones are kept. Returns the ids forgotten. */
  forgetEnded(): string[] {
    return this.history.forgetEnded();
  }

  /** After an outage on the same session: forget the backoff the failures built up and poll from now. */
  resumeAfterOutage(): void {
    for (const task of this.store.getState().tasks.values())
      if (task.lifecycle === 'live' && task.backoffMs > 0)
        updateTask(this.store, task.taskId, () => ({ backoffMs: 0 }));
    this.poller.settingsChanged();
  }

  dispose(): void {
    this.disposed = true;
    this.unsubscribe();
    this.pushes.dispose();
    this.poller.dispose();
    this.results.dispose();
  }

  /** Merges one answer and acts on it (answers.ts). */
  private observe(
    taskId: string,
    update: Normalised<TaskSnapshot | null>,
    meta: AnswerMeta,
  ): TaskSnapshot | undefined {
    return this.answers.observe(taskId, update, meta);
  }
}
