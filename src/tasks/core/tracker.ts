import type { QueryClient } from '@tanstack/query-core';
import {
  classifyError,
  hasResult,
  isTerminal,
  sequenceWarnings,
  type ClassifiedError,
  type Normalised,
  type Warning,
  type TaskSnapshot,
  type TaskResultSnapshot,
  type TaskActivity,
} from '../../mcp';
import { queryKeys } from './query-keys';
import { TaskPoller, shortId } from './poller';
import { ResultFetcher } from './result-fetcher';
import {
  appendEntry,
  createTasksStore,
  newTrackedTask,
  noteDialect,
  updateTask,
  type InputEntry,
  type ObservationSource,
  type TimelineEntry,
  type TasksStore,
  type TrackedTask,
} from './store';
import { CLOCK_OUTLIER_MS, ClockOffsetEstimator, mergeSnapshot } from './merge';
import { unlimitedScheduler } from './request-scheduler';
import { DEFAULT_POLL_INTERVAL_MS } from './interval';
import { formatClock, formatMs } from './ttl';
import { MAX_POLLED_TASKS } from './limits';
import { PushIntake } from './push-intake';
import {
  systemClock,
  type Clock,
  type TaskApiPort,
  type TrackerDeps,
  type TrackerSettings,
} from './tracker-types';

export { systemClock, type Clock, type TaskApiPort, type TrackerDeps, type TrackerSettings };

/** A task as history kept it (engine/history): shown again at once, polled once its session is known. */
export interface RestoredTask {
  record: Omit<TrackedTask, 'entries'>;
  entries: TimelineEntry[];
  snapshot?: TaskSnapshot;
  result?: Normalised<TaskResultSnapshot>;
}

/** Progress reports closer together than this update the bar but add no timeline entry. */
const PROGRESS_ENTRY_GAP_MS = 100;
/** Activity for tasks not known yet, held for this many tasks and this many reports each at most. */
const MAX_EARLY_TASKS = 200;
const MAX_EARLY_PER_TASK = 20;
/** After a plain call answers, pushes for unknown tasks are still not followed for this long. */
const PLAIN_CALL_QUIET_MS = 2000;

export interface TrackOptions {
  origin: TrackedTask['origin'];
  tool?: string;
  /** The call that created it here (tool, arguments, requested ttl). */
  call?: TrackedTask['call'];
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
  private readonly clockOffset = new ClockOffsetEstimator();
  /** Tasks already warned about for timestamps far from the others'. */
  private readonly clockOutliers = new Set<string>();
  private readonly unsubscribe: () => void;
  private disposed = false;
  private readonly snapshots = new Map<string, TaskSnapshot>();
  private readonly maxPolled: number;
  private readonly pushes: PushIntake;
  private readonly openResultForInput: () => boolean;
  private readonly sessionId: () => string | undefined;
  private readonly earlyActivity = new Map<string, TaskActivity[]>();
  /** Ids pasted while no session was up (during an outage): the next session's, not another's. */
  private readonly unsessioned = new Set<string>();
  private plainCalls = 0;
  private plainQuietUntil = 0;

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
    this.pushes = new PushIntake({
      clock: this.clock,
      isTracked: (taskId) => this.poller.has(taskId),
      ignoreUnknown: () => this.plainCalls > 0 || this.clock.now() < this.plainQuietUntil,
      track: (taskId, update) =>
        this.track(taskId, { origin: 'notification', initial: update, source: 'notification' }),
      observe: (taskId, update) => this.observe(taskId, update, { source: 'notification' }),
      untracked: (count) => this.store.setState({ untrackedSeen: count }),
    });
    const stopStatus = this.api.onTaskStatus((update) => {
      if (!update.value || this.disposed) return;
      this.pushes.receive(update.value.taskId, update);
    });
    const stopActivity = this.api.onTaskActivity?.((taskId, activity) => this.activity(taskId, activity));
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
   * The latest merged snapshot. The query cache holds the same value (fetchQuery's data, or setQueryData);
   * this map is read several times per poll, where hashing a query key each time showed up in profiles.
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
          t.tool ? {} : { tool: options.tool, origin: options.origin, call: options.call },
        );
      if (options.initial?.value)
        this.observe(taskId, options.initial, { source: options.source ?? 'create', sentAt: options.sentAt });
      return;
    }
    this.poller.add(taskId);
    // Only a pasted id: a created task was sent in a session (one lost while its answer came is not the next
    // one's), and a sessionless receiver's tasks never need adopting.
    if (options.origin === 'manual' && this.sessionId() === undefined) this.unsessioned.add(taskId);
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
    const early = this.earlyActivity.get(taskId);
    if (early) {
      this.earlyActivity.delete(taskId);
      for (const activity of early) this.activity(taskId, activity);
    }
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
   * Progress on the task's token, or a log line naming it. The bar follows every report; the timeline keeps
   * one progress entry per PROGRESS_ENTRY_GAP_MS at most, so a receiver reporting a thousand times a second
   * cannot push the task's observations out of its history.
   */
  private activity(taskId: string, activity: TaskActivity): void {
    if (this.disposed) return;
    if (!this.poller.has(taskId)) {
      // A log line naming a task usually comes before the create answer that makes it known: hold it.
      this.holdActivity(taskId, activity);
      return;
    }
    const at = this.clock.now();
    updateTask(this.store, taskId, (task) => {
      if (activity.kind === 'log') return appendEntry(task, { ...activity, at });
      const { kind: _kind, ...progress } = activity;
      const last = task.progress;
      const entry =
        !last || at - last.at >= PROGRESS_ENTRY_GAP_MS || last.message !== progress.message
          ? appendEntry(task, { kind: 'progress', at, ...progress })
          : {};
      return { ...entry, progress: { ...progress, at } };
    });
  }

  private holdActivity(taskId: string, activity: TaskActivity): void {
    let list = this.earlyActivity.get(taskId);
    if (!list) {
      this.earlyActivity.set(taskId, (list = []));
      if (this.earlyActivity.size > MAX_EARLY_TASKS)
        this.earlyActivity.delete(this.earlyActivity.keys().next().value as string);
    }
    list.push(activity);
    if (list.length > MAX_EARLY_PER_TASK) list.shift();
  }

  /**
   * A plain tools/call: a receiver may run it as a task of its own (SDK 1.x's automatic task polling) and
   * push that task's status; while the call is out (and a moment after), a push for an unknown task is not
   * followed, so a plain call never adds a nameless task to the list.
   */
  async duringPlainCall<T>(call: () => Promise<T>): Promise<T> {
    this.plainCalls++;
    try {
      return await call();
    } finally {
      this.plainCalls--;
      this.plainQuietUntil = this.clock.now() + PLAIN_CALL_QUIET_MS;
    }
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

  /**
   * Puts back what history kept, as it was. Nothing is polled yet: whether a live task can be, depends on the
   * session it belonged to (sessionReady). A request that was open when the page went away is not open now.
   */
  restore(tasks: readonly RestoredTask[]): void {
    if (this.disposed) return;
    const restored: string[] = [];
    for (const { record, entries, snapshot, result } of tasks) {
      if (this.poller.has(record.taskId)) continue;
      this.poller.add(record.taskId);
      restored.push(record.taskId);
      const resultState: TrackedTask['result'] = result
        ? record.result.state === 'fetched'
          ? record.result
          : { state: 'fetched', at: this.clock.now() }
        : record.result.state === 'unavailable' || record.result.state === 'not-ready'
          ? record.result
          : { state: 'none' };
      this.store.getState().tasks.set(record.taskId, {
        ...record,
        entries,
        connectionId: this.connectionId,
        nextPollInMs: null,
        backoffMs: 0,
        lastError: record.lifecycle === 'live' ? undefined : record.lastError,
        result: resultState,
      });
      if (snapshot) {
        this.snapshots.set(record.taskId, snapshot);
        this.queryClient.setQueryData(queryKeys.task(this.connectionId, record.taskId), snapshot);
      }
      if (result)
        this.queryClient.setQueryData(queryKeys.taskResult(this.connectionId, record.taskId), result);
    }
    if (restored.length === 0) return;
    this.store.setState((state) => {
      for (const taskId of restored) state.order.push(taskId);
      return { version: state.version + 1 };
    });
  }

  /**
   * A session is up (the first, a resumed one, or a new one after the last was lost). Live tasks of this very
   * session are polled again; those of `ended` (this tab's previous session) are asked about once, since a
   * receiver may keep tasks across sessions; those of any other session are shown but left alone.
   */
  sessionReady(ended?: string): void {
    const current = this.sessionId();
    const now = this.clock.now();
    if (current !== undefined) {
      for (const taskId of this.unsessioned)
        if (this.store.getState().tasks.get(taskId)?.sessionId === undefined)
          updateTask(this.store, taskId, () => ({ sessionId: current }));
    }
    // A sessionless receiver never gets a session: its tasks are all of the one it has, nothing to adopt.
    this.unsessioned.clear();
    for (const task of [...this.store.getState().tasks.values()]) {
      if (task.sessionId === current) {
        if (task.otherSession) updateTask(this.store, task.taskId, () => ({ otherSession: undefined }));
        if (task.lifecycle === 'live' && !task.dormant) {
          this.poller.schedule(task.taskId);
          // Its open tasks/result went with the page (or the outage): open it again so the question comes back.
          if (task.status === 'input_required' && this.openResultForInput())
            this.results.openForInput(task.taskId);
        }
        if (task.lifecycle !== 'terminal') continue;
        this.poller.scheduleProbe(task.taskId);
        // The page went away while its result was on its way: ask again in the same session.
        if (hasResult(task.status) && task.result.state === 'none') this.results.fetch(task.taskId);
        continue;
      }
      if (ended !== undefined && task.sessionId === ended) {
        this.markSessionEnded(task.taskId, now);
        if (task.lifecycle === 'live' && !task.dormant) void this.poller.poll(task.taskId);
        continue;
      }
      if (!task.otherSession && task.sessionEndedAt === undefined)
        updateTask(this.store, task.taskId, () => ({ otherSession: true, nextPollInMs: null }));
    }
  }

  /**
   * The session ended: lost (a new one follows, see sessionReady) or ended by the person (final: nothing
   * follows, so live tasks are over as far as this page can tell). Timers stop; the records stay.
   */
  sessionEnded(options: { final: boolean }): void {
    const current = this.sessionId();
    const now = this.clock.now();
    for (const task of [...this.store.getState().tasks.values()]) {
      if (task.sessionId !== current || task.otherSession) continue;
      this.poller.stop(task.taskId);
      if (current !== undefined) this.markSessionEnded(task.taskId, now);
      if (options.final && task.lifecycle === 'live')
        updateTask(this.store, task.taskId, () => ({ lifecycle: 'session-ended' }));
    }
  }

  /**
   * A task from another session: ask about it in this one (the receiver may know it here too). It stays the
   * other session's until the receiver answers for it here, so a refusal never says that session ended.
   */
  follow(taskId: string): void {
    const task = this.store.getState().tasks.get(taskId);
    if (!task || (task.lifecycle !== 'live' && task.lifecycle !== 'session-ended')) return;
    updateTask(this.store, taskId, () => ({ lifecycle: 'live', dormant: false }));
    void this.poller.poll(taskId);
  }

  /**
   * Forgets tasks entirely (a person cleared history). Live ones are kept, another tab's too: that tab is
   * still running them. Returns the ids forgotten.
   */
  forgetEnded(): string[] {
    const gone: string[] = [];
    for (const task of this.store.getState().tasks.values()) {
      if (task.lifecycle === 'live') continue;
      gone.push(task.taskId);
      this.poller.remove(task.taskId);
      this.snapshots.delete(task.taskId);
      this.unsessioned.delete(task.taskId);
      this.queryClient.removeQueries({ queryKey: queryKeys.task(this.connectionId, task.taskId) });
    }
    if (gone.length === 0) return gone;
    const set = new Set(gone);
    this.store.setState((state) => {
      for (const taskId of gone) state.tasks.delete(taskId);
      return { order: state.order.filter((taskId) => !set.has(taskId)), version: state.version + 1 };
    });
    return gone;
  }

  /** After an outage on the same session: forget the backoff the failures built up and poll from now. */
  resumeAfterOutage(): void {
    for (const task of this.store.getState().tasks.values())
      if (task.lifecycle === 'live' && task.backoffMs > 0)
        updateTask(this.store, task.taskId, () => ({ backoffMs: 0 }));
    this.poller.settingsChanged();
  }

  private markSessionEnded(taskId: string, at: number): void {
    updateTask(this.store, taskId, (task) =>
      task.sessionEndedAt !== undefined
        ? {}
        : {
            ...appendEntry(task, {
              kind: 'session',
              at,
              phase: 'ended',
              detail: `Session ${shortId(task.sessionId)} ended at ${formatClock(at)}.`,
            }),
            sessionEndedAt: at,
            nextPollInMs: null,
          },
    );
  }

  dispose(): void {
    this.disposed = true;
    this.unsubscribe();
    this.pushes.dispose();
    this.poller.dispose();
    this.results.dispose();
  }

  /**
   * Merges one answer into what we know, records it on the timeline, and acts on it: a first terminal status
   * stops polling and fetches the result in this same tick.
   */
  private observe(
    taskId: string,
    update: Normalised<TaskSnapshot | null>,
    meta: {
      source: ObservationSource;
      sentAt?: number;
      latencyMs?: number;
      intervalMs?: number;
      /** A poll that was answered: whatever backoff the errors before it built up is over. */
      answered?: boolean;
    },
  ): TaskSnapshot | undefined {
    const at = this.clock.now();
    const previous = this.snapshot(taskId);
    const value = update.value;
    // Pushes and tasks/list entries were read without this task's history; check their sequence here.
    const warnings = [...update.warnings];
    if (value && (meta.source === 'notification' || meta.source === 'list')) {
      warnings.push(...sequenceWarnings(value, previous));
    }
    const merged = value ? mergeSnapshot(previous, value) : previous;
    if (merged) this.snapshots.set(taskId, merged);
    // tasks/get is where the dialects differ (the create answer is {task} in both).
    if (value && (meta.source === 'poll' || value.shape === 'v2')) {
      noteDialect(this.store, value.shape === 'v2' ? 'v2' : value.shape === 'wrapped' ? 'user-docs' : 'spec');
    }
    if (value) this.checkClock(taskId, value, previous, at, meta.source, warnings);
    // Whatever answers now comes from the current session: the receiver knows the task here.
    const fromReceiver = meta.answered || meta.source === 'list' || meta.source === 'notification';
    const movedHere = fromReceiver && this.knownHere(taskId, at);
    const task = this.store.getState().tasks.get(taskId);
    if (!task) return merged;
    const becameTerminal = task.lifecycle === 'live' && isTerminal(merged?.status);
    const askedForInput =
      task.lifecycle === 'live' &&
      merged?.status === 'input_required' &&
      (previous?.status !== 'input_required' || movedHere);
    updateTask(this.store, taskId, (t) => ({
      ...appendEntry(t, {
        kind: 'observation',
        at,
        source: meta.source,
        sentAt: meta.sentAt,
        latencyMs: meta.latencyMs,
        intervalMs: meta.intervalMs,
        status: value?.status ?? null,
        statusMessage: value?.statusMessage,
        lastUpdatedAt: value?.lastUpdatedAt,
        createdAt: value?.createdAt,
        ttl: value?.ttl,
        pollInterval: value?.pollInterval,
        warnings,
      }),
      status: merged?.status ?? t.status,
      lifecycle: becameTerminal ? 'terminal' : t.lifecycle,
      notificationCount: t.notificationCount + (meta.source === 'notification' ? 1 : 0),
      ...(meta.answered ? { backoffMs: 0, lastError: undefined } : {}),
      warningCount: t.warningCount + warnings.length,
    }));
    if (merged && meta.source !== 'poll' && meta.source !== 'probe') {
      this.queryClient.setQueryData(queryKeys.task(this.connectionId, taskId), merged);
    }
    if (becameTerminal && merged) this.onTerminal(taskId, merged);
    else if (
      merged &&
      meta.source !== 'poll' &&
      meta.source !== 'probe' &&
      (merged.pollInterval ?? DEFAULT_POLL_INTERVAL_MS) > (previous?.pollInterval ?? DEFAULT_POLL_INTERVAL_MS)
    ) {
      // A push or a listing asked for a longer interval: the timer set from the shorter one would poll
      // sooner than asked. Re-arm it from now (only ever later, so a push still never brings a poll forward).
      this.poller.schedule(taskId);
    }
    if (askedForInput && this.openResultForInput()) this.results.openForInput(taskId);
    return merged;
  }

  /**
   * The receiver answered about this task in the current session: one carried over from another session (or
   * given up as "session ended") is this session's from now on, and live again. True when it moved here.
   */
  private knownHere(taskId: string, at: number): boolean {
    const current = this.sessionId();
    const task = this.store.getState().tasks.get(taskId);
    if (!task || (task.sessionId === current && task.lifecycle !== 'session-ended')) return false;
    updateTask(this.store, taskId, (t) => ({
      ...appendEntry(t, {
        kind: 'session',
        at,
        phase: 'known-again',
        detail: `The receiver knows this task in session ${shortId(current)}: followed there.`,
      }),
      sessionId: current,
      otherSession: undefined,
      sessionEndedAt: undefined,
      lifecycle: t.lifecycle === 'session-ended' ? 'live' : t.lifecycle,
    }));
    return true;
  }

  /**
   * Feeds the receiver's clock estimate and flags timestamps that cannot be right. Only a lastUpdatedAt we
   * saw change (or a create answer, written just now) says what the receiver's clock reads; a listed task's
   * may be hours old. A timestamp further ahead of its arrival than the offset allows is flagged, once.
   */
  private checkClock(
    taskId: string,
    value: TaskSnapshot,
    previous: TaskSnapshot | undefined,
    at: number,
    source: ObservationSource,
    warnings: Warning[],
  ): void {
    const fresh = previous !== undefined || source === 'create';
    const clock = fresh ? this.clockOffset.note(taskId, value, previous, at) : {};
    // A sample that leaves the estimate where it was still counts: the report card judges only a known clock.
    const samples = this.clockOffset.count;
    if (clock.offset !== undefined || samples !== this.store.getState().clockSamples)
      this.store.setState({
        clockOffsetMs: clock.offset ?? this.store.getState().clockOffsetMs,
        clockSamples: samples,
      });
    const ahead = (value.lastUpdatedAtMs ?? -Infinity) - at - this.store.getState().clockOffsetMs;
    const off = clock.outlierMs ?? (ahead > CLOCK_OUTLIER_MS ? ahead : undefined);
    if (off === undefined || this.clockOutliers.has(taskId)) return;
    this.clockOutliers.add(taskId);
    warnings.push({
      code: 'bad-timestamp',
      message: `lastUpdatedAt is ${formatMs(Math.abs(off))} ${off > 0 ? 'ahead of' : 'behind'} this receiver's clock as its other answers show it: left out of the clock offset`,
    });
  }

  private onTerminal(taskId: string, snapshot: TaskSnapshot): void {
    this.poller.stop(taskId);
    if (hasResult(snapshot.status)) this.results.fetch(taskId);
    this.poller.scheduleProbe(taskId);
  }
}
