import type { QueryClient } from '@tanstack/query-core';
import {
  BoundedLists,
  classifyError,
  hasResult,
  sequenceWarnings,
  type ClassifiedError,
  type Normalised,
  type TaskActivity,
  type TaskResultSnapshot,
  type TaskSnapshot,
} from '../mcp';
import { TaskPoller } from './poller';
import { ResultFetcher } from './result-fetcher';
import {
  appendEntry,
  createTasksStore,
  newTrackedTask,
  noteDialect,
  updateTask,
  type InputEntry,
  type ObservationEntry,
  type ObservationSource,
  type TasksStore,
  type TimelineEntry,
  type TrackedTask,
} from './task-store';
import { unlimitedScheduler } from './request-scheduler';
import { AUTO_TRACK_PER_MINUTE, MAX_POLLED_TASKS, MAX_SEEN_UNTRACKED, PUSH_COALESCE_MS } from './limits';
import { ClockCheck } from './clock-offset';
import { mergeSnapshot } from './merge';
import { DEFAULT_POLL_INTERVAL_MS } from './poll-timing';
import { queryKeys } from './queries';
import {
  activityChange,
  endsTask,
  knownAgainChange,
  observationChange,
  sessionEndedChange,
  taskDialect,
} from './record-changes';
import {
  systemClock,
  type Clock,
  type TaskApiPort,
  type TrackerDeps,
  type TrackerSettings,
} from './tracker-types';

export { systemClock, type Clock, type TaskApiPort, type TrackerDeps, type TrackerSettings };

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

/** How an answer came: a poll (with its timing), a push, tasks/list, a cancel answer, a purge probe, the check. */
export interface AnswerMeta {
  source: ObservationSource;
  sentAt?: number;
  latencyMs?: number;
  intervalMs?: number;
  /** A request of ours was answered: whatever backoff the errors before it built up is over. */
  answered?: boolean;
}

/** A task as history kept it (engine/history): shown again at once, polled once its session is known. */
export interface RestoredTask {
  record: Omit<TrackedTask, 'entries'>;
  entries: TimelineEntry[];
  snapshot?: TaskSnapshot;
  result?: Normalised<TaskResultSnapshot>;
}

type Update = Normalised<TaskSnapshot | null>;

/** After a plain call answers, pushes for unknown tasks are still not followed for this long. */
const PLAIN_CALL_QUIET_MS = 2000;
/** Activity for tasks not known yet, held for this many tasks and this many reports each at most. */
const MAX_EARLY_TASKS = 200;
const MAX_EARLY_PER_TASK = 20;

/**
 * The one place that decides when to ask a receiver about a task, and what its answers mean. The poller
 * (poller.ts) keeps one timer per task and the result fetcher (result-fetcher.ts) its tasks/result calls; the
 * tracker merges every answer, from polls, pushes, tasks/list, a cancel or the check, into one ordered
 * history (`observe`; what an entry does to a record is in record-changes.ts), and acts on it: a first
 * terminal status stops polling and fetches the result in the same tick. Pushes update a task at once but
 * never bring its next poll forward. Read top to bottom: following a task, answers, pushes, progress and
 * logs, plain calls, sessions, history.
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
  /** The receiver's clock as its answers show it, for the whole connection. */
  private readonly clockCheck: ClockCheck;
  private readonly unsubscribe: () => void;
  private disposed = false;
  /**
   * The latest merged snapshot per task. The Worker's query cache holds the same object (fetchQuery's data, or
   * setQueryData; its client shares no structure, so it makes no copy); this map is read several times per
   * poll, where hashing a query key each time showed up in profiles.
   */
  private readonly snapshots = new Map<string, TaskSnapshot>();
  private readonly maxPolled: number;
  private readonly openResultForInput: () => boolean;
  /** The receiver's current session id (none for sessionless receivers, or between sessions). */
  private readonly sessionId: () => string | undefined;

  // Pushes (receivePush).
  /** When each recent automatic track from a push happened, for the per-minute limit. */
  private readonly autoTracked: number[] = [];
  private readonly seenUntracked = new Set<string>();
  private readonly lastPushAt = new Map<string, number>();
  private readonly pendingPushes = new Map<string, Update>();
  private readonly pushTimers = new Map<string, unknown>();

  /** Progress and log lines for tasks not known yet (receiveActivity). */
  private readonly earlyActivity = new BoundedLists<TaskActivity>(MAX_EARLY_TASKS, MAX_EARLY_PER_TASK);

  // Plain calls out, and the quiet after them (duringPlainCall).
  private plainCalls = 0;
  private plainQuietUntil = 0;

  /** Ids pasted while no session was up (during an outage): the next session's, not another's. */
  private readonly unsessioned = new Set<string>();

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
    this.clockCheck = new ClockCheck(this.store);
    const stopStatus = this.api.onTaskStatus((update) => {
      if (!update.value || this.disposed) return;
      this.receivePush(update.value.taskId, update);
    });
    const stopActivity = this.api.onTaskActivity?.((taskId, activity) =>
      this.receiveActivity(taskId, activity),
    );
    this.unsubscribe = () => {
      stopStatus();
      stopActivity?.();
    };
  }

  // ── Following a task ────────────────────────────────────────────────────────────────────────────

  /** The latest merged snapshot (see `snapshots`). */
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
    // What came for it before it was known is applied, in the order it came.
    for (const activity of this.earlyActivity.take(taskId)) this.receiveActivity(taskId, activity);
    if (options.initial?.value) {
      this.observe(taskId, options.initial, { source: options.source ?? 'create', sentAt: options.sentAt });
      this.poller.schedule(taskId);
    } else if (!dormant) {
      void this.poller.poll(taskId);
    }
  }

  /** Polls a live task now, by hand (a receiver that asked for a pollInterval of years, say). */
  pollNow(taskId: string): void {
    const task = this.store.getState().tasks.get(taskId);
    if (task?.lifecycle !== 'live') return;
    // A dormant task (past MAX_POLLED_TASKS) is followed from now on.
    if (task.dormant) updateTask(this.store, taskId, () => ({ dormant: false }));
    void this.poller.poll(taskId);
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
  observeRead(taskId: string, update: Update, meta: { source: 'list' | 'check'; sentAt: number }): void {
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

  /** Records on the task's timeline that the receiver asked a person something, and what became of it. */
  noteInput(taskId: string, entry: Omit<InputEntry, 'kind' | 'at'>): void {
    updateTask(this.store, taskId, (task) =>
      appendEntry(task, { kind: 'input', at: this.clock.now(), ...entry }),
    );
  }

  /** Stops waiting for this task's open tasks/result, freeing its connection. */
  stopResult(taskId: string): boolean {
    return this.results.stop(taskId);
  }

  /** Fetches a result again by hand (e.g. after not-ready); the automatic fetch happens once on its own. */
  refetchResult(taskId: string): void {
    this.results.fetch(taskId, true);
  }

  /** Re-reads settings (pause, user minimum): a pause stops every timer, a resume restarts them from now. */
  settingsChanged(): void {
    this.poller.settingsChanged();
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
    for (const timer of this.pushTimers.values()) this.clock.clearTimeout(timer);
    this.pushTimers.clear();
    this.poller.dispose();
    this.results.dispose();
  }

  // ── Answers ─────────────────────────────────────────────────────────────────────────────────────

  /**
   * What an answer about a task means, whoever asked: merges it into what we know, records it on the timeline,
   * and acts on it — a first terminal status stops polling and fetches the result in this same tick. Returns
   * the merged snapshot (what the poll's query holds).
   */
  private observe(taskId: string, update: Update, meta: AnswerMeta): TaskSnapshot | undefined {
    const at = this.clock.now();
    const previous = this.snapshots.get(taskId);
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
      noteDialect(this.store, taskDialect(value.shape));
    }
    if (value) this.clockCheck.check(taskId, value, previous, at, meta.source, warnings);
    // Whatever answers now comes from the current session: the receiver knows the task here.
    const fromReceiver = meta.answered || meta.source === 'list' || meta.source === 'notification';
    const movedHere = fromReceiver && this.knownHere(taskId, at);
    const task = this.store.getState().tasks.get(taskId);
    if (!task) return merged;
    const becameTerminal = endsTask(task, merged?.status);
    const askedForInput =
      task.lifecycle === 'live' &&
      merged?.status === 'input_required' &&
      (previous?.status !== 'input_required' || movedHere);
    const entry: ObservationEntry = {
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
    };
    updateTask(this.store, taskId, (t) =>
      observationChange(t, entry, merged?.status, meta.answered === true),
    );
    // A poll's answer reaches the query cache as fetchQuery's data.
    if (merged && meta.source !== 'poll' && meta.source !== 'probe') {
      this.queryClient.setQueryData(queryKeys.task(this.connectionId, taskId), merged);
    }
    if (becameTerminal && merged) {
      this.poller.stop(taskId);
      if (hasResult(merged.status)) this.results.fetch(taskId);
      this.poller.scheduleProbe(taskId);
    } else if (
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

  // ── Pushes ──────────────────────────────────────────────────────────────────────────────────────

  /**
   * A status push, held to a pace a receiver cannot push past. The first push for a task is merged at once;
   * more within PUSH_COALESCE_MS are coalesced (the latest wins), so thousands a second cost one merge per
   * task per window. A push for a task not followed starts following it, up to AUTO_TRACK_PER_MINUTE a minute
   * (and not while a plain call is out); the rest are counted and offered (trackSeen).
   */
  private receivePush(taskId: string, update: Update): void {
    const now = this.clock.now();
    if (!this.poller.has(taskId)) {
      if (this.plainCallQuiet()) return;
      while ((this.autoTracked[0] ?? Infinity) <= now - 60_000) this.autoTracked.shift();
      if (this.autoTracked.length >= AUTO_TRACK_PER_MINUTE) {
        if (!this.seenUntracked.has(taskId) && this.seenUntracked.size < MAX_SEEN_UNTRACKED) {
          this.seenUntracked.add(taskId);
          this.store.setState({ untrackedSeen: this.seenUntracked.size });
        }
        return;
      }
      this.autoTracked.push(now);
      this.lastPushAt.set(taskId, now);
      this.track(taskId, { origin: 'notification', initial: update, source: 'notification' });
      return;
    }
    const last = this.lastPushAt.get(taskId) ?? -Infinity;
    if (now - last >= PUSH_COALESCE_MS && !this.pendingPushes.has(taskId)) {
      this.lastPushAt.set(taskId, now);
      this.observe(taskId, update, { source: 'notification' });
      return;
    }
    const waiting = this.pendingPushes.has(taskId);
    this.pendingPushes.set(taskId, update);
    if (waiting) return;
    this.pushTimers.set(
      taskId,
      this.clock.setTimeout(
        () => {
          this.pushTimers.delete(taskId);
          const latest = this.pendingPushes.get(taskId);
          this.pendingPushes.delete(taskId);
          if (!latest || this.disposed) return;
          this.lastPushAt.set(taskId, this.clock.now());
          this.observe(taskId, latest, { source: 'notification' });
        },
        Math.max(0, last + PUSH_COALESCE_MS - now),
      ),
    );
  }

  /** Follows the task ids that pushes named beyond the automatic limit, up to `max` of them. */
  trackSeen(max = 1000): number {
    let count = 0;
    for (const taskId of this.seenUntracked) {
      if (count >= max) break;
      this.seenUntracked.delete(taskId);
      if (!this.poller.has(taskId)) {
        this.track(taskId, { origin: 'notification', source: 'notification' });
        count++;
      }
    }
    this.store.setState({ untrackedSeen: this.seenUntracked.size });
    return count;
  }

  // ── Progress and log lines ──────────────────────────────────────────────────────────────────────

  /**
   * Progress on the task's token, or a log line naming it. Neither changes a task's status or lifecycle: they
   * feed its bar and its timeline (activityChange), and come at a receiver's pace, often before the task they
   * name is known — held then, under a cap, until `track`.
   */
  private receiveActivity(taskId: string, activity: TaskActivity): void {
    if (this.disposed) return;
    if (!this.poller.has(taskId)) {
      this.earlyActivity.add(taskId, activity);
      return;
    }
    const at = this.clock.now();
    updateTask(this.store, taskId, (task) => activityChange(task, activity, at));
  }

  // ── Plain calls ─────────────────────────────────────────────────────────────────────────────────

  /**
   * A plain tools/call: a receiver may run it as a task of its own (SDK 1.x's automatic task polling) and
   * push that task's status; while the call is out (and PLAIN_CALL_QUIET_MS after), a push for an unknown task
   * is not followed, so a plain call never adds a nameless task to the list.
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

  private plainCallQuiet(): boolean {
    return this.plainCalls > 0 || this.clock.now() < this.plainQuietUntil;
  }

  // ── Sessions ────────────────────────────────────────────────────────────────────────────────────
  // A receiver may keep tasks across sessions, a tab may come back on a new one after an outage, and history
  // brings back tasks of sessions long gone: what each of those means for a task is decided here.

  /**
   * A session is up (the first, a resumed one, or a new one after the last was lost). Live tasks of this very
   * session are polled again; those of `ended` (this tab's previous session) are asked about once, since a
   * receiver may keep tasks across sessions; those of any other session are shown but left alone.
   */
  sessionReady(ended?: string): void {
    const { store, poller, results } = this;
    const current = this.sessionId();
    const now = this.clock.now();
    if (current !== undefined) {
      for (const taskId of this.unsessioned)
        if (store.getState().tasks.get(taskId)?.sessionId === undefined)
          updateTask(store, taskId, () => ({ sessionId: current }));
    }
    // A sessionless receiver never gets a session: its tasks are all of the one it has, nothing to adopt.
    this.unsessioned.clear();
    for (const task of [...store.getState().tasks.values()]) {
      if (task.sessionId === current) {
        if (task.otherSession) updateTask(store, task.taskId, () => ({ otherSession: undefined }));
        if (task.lifecycle === 'live' && !task.dormant) {
          poller.schedule(task.taskId);
          // Its open tasks/result went with the page (or the outage): open it again so the question comes back.
          if (task.status === 'input_required' && this.openResultForInput())
            results.openForInput(task.taskId);
        }
        if (task.lifecycle !== 'terminal') continue;
        poller.scheduleProbe(task.taskId);
        // The page went away while its result was on its way: ask again in the same session.
        if (hasResult(task.status) && task.result.state === 'none') results.fetch(task.taskId);
        continue;
      }
      if (ended !== undefined && task.sessionId === ended) {
        updateTask(store, task.taskId, (t) => sessionEndedChange(t, now));
        if (task.lifecycle === 'live' && !task.dormant) void poller.poll(task.taskId);
        continue;
      }
      if (!task.otherSession && task.sessionEndedAt === undefined)
        updateTask(store, task.taskId, () => ({ otherSession: true, nextPollInMs: null }));
    }
  }

  /**
   * The session ended: lost (a new one follows, see sessionReady) or ended by the person (final: nothing
   * follows, so live tasks are over as far as this page can tell). Timers stop; the records stay.
   */
  sessionEnded(options: { final: boolean }): void {
    const { store, poller } = this;
    const current = this.sessionId();
    const now = this.clock.now();
    for (const task of [...store.getState().tasks.values()]) {
      if (task.sessionId !== current || task.otherSession) continue;
      poller.stop(task.taskId);
      if (current !== undefined) updateTask(store, task.taskId, (t) => sessionEndedChange(t, now));
      if (options.final && task.lifecycle === 'live')
        updateTask(store, task.taskId, () => ({ lifecycle: 'session-ended' }));
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
   * The receiver answered about this task in the current session: one carried over from another session (or
   * given up as "session ended") is this session's from now on, and live again. True when it moved here.
   */
  private knownHere(taskId: string, at: number): boolean {
    const current = this.sessionId();
    const task = this.store.getState().tasks.get(taskId);
    if (!task || (task.sessionId === current && task.lifecycle !== 'session-ended')) return false;
    updateTask(this.store, taskId, (t) => knownAgainChange(t, current, at));
    return true;
  }

  // ── History ─────────────────────────────────────────────────────────────────────────────────────
  // The only ways a task appears or disappears without an answer from the receiver.

  /**
   * Puts back what history kept, as it was. Nothing is polled yet: whether a live task can be depends on the
   * session it belonged to (sessionReady). A request that was open when the page went away is not open now.
   */
  restore(tasks: readonly RestoredTask[]): void {
    if (this.disposed) return;
    const { store, clock, connectionId, queryClient, poller, snapshots } = this;
    const restored: string[] = [];
    for (const { record, entries, snapshot, result } of tasks) {
      if (poller.has(record.taskId)) continue;
      poller.add(record.taskId);
      restored.push(record.taskId);
      const resultState: TrackedTask['result'] = result
        ? record.result.state === 'fetched'
          ? record.result
          : { state: 'fetched', at: clock.now() }
        : record.result.state === 'unavailable' || record.result.state === 'not-ready'
          ? record.result
          : { state: 'none' };
      store.getState().tasks.set(record.taskId, {
        ...record,
        // An old value is not where the task stands now: the view says when it was reported.
        ...(record.progress ? { progress: { ...record.progress, restored: true } } : {}),
        entries,
        connectionId,
        nextPollInMs: null,
        backoffMs: 0,
        lastError: record.lifecycle === 'live' ? undefined : record.lastError,
        result: resultState,
      });
      if (snapshot) {
        snapshots.set(record.taskId, snapshot);
        queryClient.setQueryData(queryKeys.task(connectionId, record.taskId), snapshot);
      }
      if (result) queryClient.setQueryData(queryKeys.taskResult(connectionId, record.taskId), result);
    }
    if (restored.length === 0) return;
    store.setState((state) => {
      for (const taskId of restored) state.order.push(taskId);
      return { version: state.version + 1 };
    });
  }

  /**
   * Forgets ended tasks entirely (a person cleared history). Live ones are kept, another tab's too: that tab
   * is still running them. Returns the ids forgotten.
   */
  forgetEnded(): string[] {
    const { store, connectionId, queryClient, poller, snapshots } = this;
    const gone: string[] = [];
    for (const task of store.getState().tasks.values()) {
      if (task.lifecycle === 'live') continue;
      gone.push(task.taskId);
      poller.remove(task.taskId);
      snapshots.delete(task.taskId);
      this.unsessioned.delete(task.taskId);
      queryClient.removeQueries({ queryKey: queryKeys.task(connectionId, task.taskId) });
    }
    if (gone.length === 0) return gone;
    const set = new Set(gone);
    store.setState((state) => {
      for (const taskId of gone) state.tasks.delete(taskId);
      return { order: state.order.filter((taskId) => !set.has(taskId)), version: state.version + 1 };
    });
    return gone;
  }
}
