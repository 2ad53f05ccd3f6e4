import type { QueryClient } from '@tanstack/react-query';
import {
  classifyError,
  hasResult,
  isTerminal,
  sequenceWarnings,
  type ClassifiedError,
  type Normalised,
  type TaskSnapshot,
} from '../mcp';
import { queryKeys } from '../app/queryKeys';
import { nextBackoff, pollDelay } from './interval';
import { ResultFetcher } from './result-fetcher';
import {
  appendEntry,
  createTasksStore,
  newTrackedTask,
  noteDialect,
  updateTask,
  type InputEntry,
  type ObservationSource,
  type TasksStore,
  type TrackedTask,
} from './store';
import { ClockOffsetEstimator, MAX_PURGE_PROBES, mergeSnapshot, nextProbe } from './merge';
import {
  systemClock,
  type Clock,
  type TaskApiPort,
  type TrackerDeps,
  type TrackerSettings,
} from './tracker-types';

export { systemClock, type Clock, type TaskApiPort, type TrackerDeps, type TrackerSettings };

/** Timers and flags per task: how the tracker works, not what the UI shows, so they stay out of the store. */
interface Runtime {
  timer?: unknown;
  inFlight: boolean;
  retryAfterUntil?: number;
  probeTimer?: unknown;
  probeGapMs: number;
  probes: number;
}

export interface TrackOptions {
  origin: TrackedTask['origin'];
  tool?: string;
  /** What the receiver already told us (the create answer, a tasks/list entry, a push). */
  initial?: Normalised<TaskSnapshot | null>;
  source?: ObservationSource;
  sentAt?: number;
}

/**
 * The one place that decides when to ask a receiver about a task. Every tracked task gets its own timer (so a
 * task is polled whether or not anything shows it), at most one poll in flight, and a delay re-read from
 * every answer (interval.ts). Polls go through react-query's fetchQuery, which keeps the latest snapshot per
 * task under the key factory. Pushes update a task at once but never bring its next poll forward.
 */
export class TaskTracker {
  readonly store: TasksStore;
  private readonly api: TaskApiPort;
  private readonly queryClient: QueryClient;
  private readonly connectionId: number;
  private readonly clock: Clock;
  private readonly settings: () => TrackerSettings;
  private readonly runtimes = new Map<string, Runtime>();
  private readonly results: ResultFetcher;
  private readonly clockOffset = new ClockOffsetEstimator();
  private readonly unsubscribe: () => void;
  private disposed = false;
  private readonly openResultForInput: boolean;

  constructor(deps: TrackerDeps) {
    this.api = deps.api;
    this.queryClient = deps.queryClient;
    this.connectionId = deps.connectionId;
    this.store = deps.store ?? createTasksStore();
    this.clock = deps.clock ?? systemClock;
    this.settings = deps.settings ?? (() => ({ paused: false, minPollIntervalMs: 0 }));
    this.openResultForInput = deps.openResultForInput ?? true;
    this.results = new ResultFetcher({
      ...deps,
      store: this.store,
      clock: this.clock,
      isDisposed: () => this.disposed,
    });
    this.unsubscribe = this.api.onTaskStatus((update) => {
      if (!update.value || this.disposed) return;
      const { taskId } = update.value;
      if (!this.runtimes.has(taskId))
        this.track(taskId, { origin: 'notification', initial: update, source: 'notification' });
      else this.observe(taskId, update, { source: 'notification' });
    });
  }

  snapshot(taskId: string): TaskSnapshot | undefined {
    return this.queryClient.getQueryData<TaskSnapshot>(queryKeys.task(this.connectionId, taskId));
  }

  isTracked(taskId: string): boolean {
    return this.runtimes.has(taskId);
  }

  /** Starts following a task. Without an initial snapshot it is polled at once (a pasted id). */
  track(taskId: string, options: TrackOptions): void {
    if (this.disposed) return;
    if (this.runtimes.has(taskId)) {
      // A push can announce a task before the tools/call that created it has answered: keep what the
      // creator knows (the tool's name) and its answer, without starting a second poller.
      if (options.tool)
        updateTask(this.store, taskId, (t) => (t.tool ? {} : { tool: options.tool, origin: options.origin }));
      if (options.initial?.value)
        this.observe(taskId, options.initial, { source: options.source ?? 'create', sentAt: options.sentAt });
      return;
    }
    this.runtimes.set(taskId, { inFlight: false, probeGapMs: 0, probes: 0 });
    this.store.setState((state) => {
      state.tasks.set(
        taskId,
        newTrackedTask({
          taskId,
          connectionId: this.connectionId,
          tool: options.tool,
          origin: options.origin,
          firstSeenAt: this.clock.now(),
        }),
      );
      return { order: [...state.order, taskId], version: state.version + 1 };
    });
    if (options.initial?.value) {
      this.observe(taskId, options.initial, { source: options.source ?? 'create', sentAt: options.sentAt });
      this.schedule(taskId);
    } else {
      void this.poll(taskId);
    }
  }

  /** tasks/list, every page: tracks what is new, and updates what is known. */
  async syncList(): Promise<void> {
    const sentAt = this.clock.now();
    const { tasks } = await this.api.listTasks();
    for (const snapshot of tasks) {
      const update = { value: snapshot, warnings: [] };
      if (this.runtimes.has(snapshot.taskId))
        this.observe(snapshot.taskId, update, { source: 'list', sentAt });
      else this.track(snapshot.taskId, { origin: 'list', initial: update, source: 'list', sentAt });
    }
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

  /** Fetches a result again by hand (e.g. after not-ready); the automatic fetch happens once on its own. */
  refetchResult(taskId: string): void {
    this.results.fetch(taskId, true);
  }

  /** Re-reads settings (pause, user minimum): a pause stops every timer, a resume restarts them from now. */
  settingsChanged(): void {
    for (const taskId of this.runtimes.keys()) {
      const task = this.store.getState().tasks.get(taskId);
      if (task?.lifecycle === 'live') this.schedule(taskId);
    }
  }

  dispose(): void {
    this.disposed = true;
    this.unsubscribe();
    for (const runtime of this.runtimes.values()) {
      this.clock.clearTimeout(runtime.timer);
      this.clock.clearTimeout(runtime.probeTimer);
    }
    this.results.dispose();
  }

  private schedule(taskId: string): void {
    const runtime = this.runtimes.get(taskId);
    const task = this.store.getState().tasks.get(taskId);
    if (!runtime || !task || this.disposed) return;
    this.clock.clearTimeout(runtime.timer);
    runtime.timer = undefined;
    const { paused, minPollIntervalMs } = this.settings();
    if (task.lifecycle !== 'live' || paused || runtime.inFlight) {
      if (task.nextPollInMs !== null) updateTask(this.store, taskId, () => ({ nextPollInMs: null }));
      return;
    }
    const delay = pollDelay({
      pollInterval: this.snapshot(taskId)?.pollInterval,
      userMinimumMs: minPollIntervalMs,
      backoffMs: task.backoffMs,
      retryAfterUntil: runtime.retryAfterUntil,
      now: this.clock.now(),
    });
    if (task.nextPollInMs !== delay) updateTask(this.store, taskId, () => ({ nextPollInMs: delay }));
    runtime.timer = this.clock.setTimeout(() => void this.poll(taskId, delay), delay);
  }

  private async poll(taskId: string, intervalMs?: number, source: 'poll' | 'probe' = 'poll'): Promise<void> {
    const runtime = this.runtimes.get(taskId);
    if (!runtime || runtime.inFlight || this.disposed) return;
    runtime.timer = undefined;
    runtime.inFlight = true;
    const sentAt = this.clock.now();
    updateTask(this.store, taskId, (task) => ({
      pollCount: task.pollCount + (source === 'poll' ? 1 : 0),
      pollsAfterTerminal: task.pollsAfterTerminal + (source === 'poll' && task.lifecycle !== 'live' ? 1 : 0),
    }));
    try {
      // One query per task: the closure's per-poll details (sentAt, source) describe this fetch, not the data.
      // eslint-disable-next-line @tanstack/query/exhaustive-deps
      await this.queryClient.fetchQuery({
        queryKey: queryKeys.task(this.connectionId, taskId),
        staleTime: 0,
        queryFn: async () => {
          const answer = await this.api.getTask(taskId, this.snapshot(taskId));
          if (this.disposed) return this.snapshot(taskId) ?? null;
          const latencyMs = this.clock.now() - sentAt;
          runtime.retryAfterUntil = undefined;
          return (
            this.observe(taskId, answer, { source, sentAt, latencyMs, intervalMs, answered: true }) ?? null
          );
        },
      });
    } catch (error) {
      if (!this.disposed) this.pollFailed(taskId, error, sentAt, source);
    } finally {
      runtime.inFlight = false;
    }
    if (source === 'poll') this.schedule(taskId);
  }

  private pollFailed(taskId: string, error: unknown, sentAt: number, source: 'poll' | 'probe'): void {
    const runtime = this.runtimes.get(taskId);
    const known = this.snapshot(taskId) !== undefined;
    const classified = classifyError(error, { method: 'tasks/get', knownTask: known });
    const now = this.clock.now();
    if (classified.kind === 'purged' || classified.kind === 'unknown-task') {
      this.endWithout(taskId, known ? 'purged' : 'unknown', classified);
      return;
    }
    if (classified.kind === 'unsupported') {
      // -32601: this receiver has no tasks/get; asking again would only repeat the refusal.
      updateTask(this.store, taskId, (task) => ({
        ...appendEntry(task, { kind: 'error', at: now, sentAt, source, error: classified }),
        lifecycle: 'unknown',
        lastError: classified,
      }));
      return;
    }
    updateTask(this.store, taskId, (task) => {
      const backoffMs = nextBackoff(task.backoffMs);
      if (runtime && classified.retryAfterMs) runtime.retryAfterUntil = now + classified.retryAfterMs;
      return {
        ...appendEntry(task, {
          kind: 'error',
          at: now,
          sentAt,
          source,
          error: classified,
          retryInMs: Math.max(backoffMs, classified.retryAfterMs ?? 0),
        }),
        backoffMs,
        lastError: classified,
        rateLimitedCount: task.rateLimitedCount + (classified.kind === 'rate-limited' ? 1 : 0),
      };
    });
    if (source === 'probe') this.scheduleProbe(taskId);
  }

  private endWithout(taskId: string, lifecycle: 'purged' | 'unknown', error: ClassifiedError): void {
    const runtime = this.runtimes.get(taskId);
    if (runtime) {
      this.clock.clearTimeout(runtime.timer);
      this.clock.clearTimeout(runtime.probeTimer);
    }
    updateTask(this.store, taskId, (task) => ({
      ...appendEntry(task, { kind: 'purged', at: this.clock.now(), error }),
      lifecycle,
      lastError: error,
      nextPollInMs: null,
    }));
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
    // tasks/get is where the dialects differ (the create answer is {task} in both).
    if (value && (meta.source === 'poll' || value.shape === 'v2')) {
      noteDialect(this.store, value.shape === 'v2' ? 'v2' : value.shape === 'wrapped' ? 'user-docs' : 'spec');
    }
    if (value) {
      const offset = this.clockOffset.note(value, previous, at);
      if (offset !== undefined)
        this.store.setState({ clockOffsetMs: offset, clockSamples: this.clockOffset.count });
    }
    const task = this.store.getState().tasks.get(taskId);
    if (!task) return merged;
    const becameTerminal = task.lifecycle === 'live' && isTerminal(merged?.status);
    const askedForInput =
      task.lifecycle === 'live' &&
      merged?.status === 'input_required' &&
      previous?.status !== 'input_required';
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
    if (askedForInput && this.openResultForInput) this.results.openForInput(taskId);
    return merged;
  }

  private onTerminal(taskId: string, snapshot: TaskSnapshot): void {
    const runtime = this.runtimes.get(taskId);
    if (runtime) {
      this.clock.clearTimeout(runtime.timer);
      runtime.timer = undefined;
    }
    updateTask(this.store, taskId, () => ({ nextPollInMs: null }));
    if (hasResult(snapshot.status)) this.results.fetch(taskId);
    this.scheduleProbe(taskId);
  }

  /**
   * A terminal task is no longer polled, so nobody would learn that the receiver purged it. Once its ttl has
   * run out, ask now and then (backing off) until the receiver says it is gone.
   */
  private scheduleProbe(taskId: string): void {
    const runtime = this.runtimes.get(taskId);
    const snapshot = this.snapshot(taskId);
    if (!runtime || !snapshot || typeof snapshot.ttl !== 'number' || snapshot.createdAtMs === undefined)
      return;
    if (runtime.probes >= MAX_PURGE_PROBES || this.disposed) return;
    const { delayMs, gapMs } = nextProbe({
      expiresAtLocal: snapshot.createdAtMs + snapshot.ttl - this.store.getState().clockOffsetMs,
      now: this.clock.now(),
      probes: runtime.probes,
      lastGapMs: runtime.probeGapMs,
      pollInterval: snapshot.pollInterval,
    });
    runtime.probeGapMs = gapMs;
    this.clock.clearTimeout(runtime.probeTimer);
    runtime.probeTimer = this.clock.setTimeout(() => {
      runtime.probes++;
      void this.poll(taskId, undefined, 'probe').then(() => {
        const task = this.store.getState().tasks.get(taskId);
        if (task?.lifecycle === 'terminal' && !task.lastError) this.scheduleProbe(taskId);
      });
    }, delayMs);
  }
}
