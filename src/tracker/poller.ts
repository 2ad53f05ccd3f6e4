import type { QueryClient } from '@tanstack/query-core';
import { classifyError, nextBackoff, type ClassifiedError, type Normalised, type TaskSnapshot } from '../mcp';
import { queryKeys } from './queries';
import { pollDelay } from './poll-timing';
import { MAX_PURGE_PROBES, nextProbe } from './poll-timing';
import { appendEntry, updateTask, type ObservationSource, type TasksStore } from './task-store';
import { errorChange, pollSentChange, purgedChange, shortId } from './record-changes';
import type { Clock, TaskApiPort, TrackerSettings } from './tracker-types';
import type { RequestScheduler } from './request-scheduler';
import { TimerQueue } from './timer-queue';

/** Timers and flags per task: how polling works, not what the UI shows, so they stay out of the store. */
interface Runtime {
  timer?: unknown;
  inFlight: boolean;
  retryAfterUntil?: number;
  probeTimer?: unknown;
  probeGapMs: number;
  probes: number;
}

/** A queued poll that was not sent: its task ended, or polling was paused, while it waited for a slot. */
const NOT_SENT = Symbol('not sent');

export interface PollMeta {
  source: ObservationSource;
  sentAt: number;
  latencyMs: number;
  intervalMs?: number;
  answered: true;
}

interface PollerDeps {
  api: Pick<TaskApiPort, 'getTask'>;
  queryClient: QueryClient;
  connectionId: number;
  store: TasksStore;
  clock: Clock;
  settings: () => TrackerSettings;
  scheduler: Pick<RequestScheduler, 'run'>;
  /** The session requests go out in now; a task last known in another cannot be judged purged. */
  sessionId: () => string | undefined;
  snapshot: (taskId: string) => TaskSnapshot | undefined;
  /** Hands an answer to the tracker, which merges and records it and returns what the cache should hold. */
  observe: (
    taskId: string,
    answer: Normalised<TaskSnapshot | null>,
    meta: PollMeta,
  ) => TaskSnapshot | undefined;
}

/**
 * When to ask. Every task gets its own timer (so it is polled whether or not anything shows it), at most one
 * poll in flight, and a delay re-read from every answer (interval.ts). Polls go through react-query's
 * fetchQuery, which keeps the latest snapshot per task under the key factory.
 */
export class TaskPoller {
  private readonly runtimes = new Map<string, Runtime>();
  private disposed = false;
  /** Every task's poll and probe timers, on one timer of the clock. */
  private readonly timers: TimerQueue;

  constructor(private readonly deps: PollerDeps) {
    this.timers = new TimerQueue(deps.clock);
  }

  has(taskId: string): boolean {
    return this.runtimes.has(taskId);
  }

  add(taskId: string): void {
    this.runtimes.set(taskId, { inFlight: false, probeGapMs: 0, probes: 0 });
  }

  /** Forgets a task: its timers stop and it is no longer known here. */
  remove(taskId: string): void {
    const runtime = this.runtimes.get(taskId);
    if (!runtime) return;
    this.timers.clearTimeout(runtime.timer);
    this.timers.clearTimeout(runtime.probeTimer);
    this.runtimes.delete(taskId);
  }

  /** Sets the task's next poll from now, or none when it is not live, polling is paused, or a poll is out. */
  schedule(taskId: string): void {
    const { store, clock, settings } = this.deps;
    const runtime = this.runtimes.get(taskId);
    const task = store.getState().tasks.get(taskId);
    if (!runtime || !task || this.disposed) return;
    this.timers.clearTimeout(runtime.timer);
    runtime.timer = undefined;
    const { paused, minPollIntervalMs } = settings();
    if (task.lifecycle !== 'live' || paused || runtime.inFlight || task.dormant) {
      if (task.nextPollInMs !== null) updateTask(store, taskId, () => ({ nextPollInMs: null }));
      return;
    }
    const delay = pollDelay({
      pollInterval: this.deps.snapshot(taskId)?.pollInterval,
      userMinimumMs: minPollIntervalMs,
      backoffMs: task.backoffMs,
      retryAfterUntil: runtime.retryAfterUntil,
      now: clock.now(),
    });
    if (task.nextPollInMs !== delay) updateTask(store, taskId, () => ({ nextPollInMs: delay }));
    runtime.timer = this.timers.setTimeout(() => void this.poll(taskId, delay), delay);
  }

  /** No more polls for this task (it ended); a purge probe may still follow. */
  stop(taskId: string): void {
    const runtime = this.runtimes.get(taskId);
    if (runtime) {
      this.timers.clearTimeout(runtime.timer);
      runtime.timer = undefined;
    }
    updateTask(this.deps.store, taskId, () => ({ nextPollInMs: null }));
  }

  /** Re-reads settings (pause, user minimum): a pause stops every timer, a resume restarts them from now. */
  settingsChanged(): void {
    for (const taskId of this.runtimes.keys()) {
      if (this.deps.store.getState().tasks.get(taskId)?.lifecycle === 'live') this.schedule(taskId);
    }
  }

  async poll(taskId: string, intervalMs?: number, source: 'poll' | 'probe' = 'poll'): Promise<void> {
    const { store, clock, queryClient, connectionId, api, scheduler } = this.deps;
    const runtime = this.runtimes.get(taskId);
    if (!runtime || runtime.inFlight || this.disposed) return;
    // A poll by hand (pollNow) comes before the timer: that timer must not bring a second poll.
    this.timers.clearTimeout(runtime.timer);
    runtime.timer = undefined;
    runtime.inFlight = true;
    const dueAt = clock.now();
    let sentAt = dueAt;
    try {
      // One query per task: the closure's per-poll details (sentAt, source) describe this fetch, not the data.
      // eslint-disable-next-line @tanstack/query/exhaustive-deps
      await queryClient.fetchQuery({
        queryKey: queryKeys.task(connectionId, taskId),
        staleTime: 0,
        queryFn: async () => {
          // Queued behind other tasks' polls when the connection budget is full; sentAt is when it left.
          const answer = await scheduler.run<Normalised<TaskSnapshot | null> | typeof NOT_SENT>(
            'poll',
            dueAt,
            () => {
              // While it waited, the task may have ended (a push, tasks/list, a cancel) or polling been paused.
              const task = store.getState().tasks.get(taskId);
              if (source === 'poll' && (task?.lifecycle !== 'live' || this.deps.settings().paused))
                return Promise.resolve(NOT_SENT);
              sentAt = clock.now();
              updateTask(store, taskId, (t) => pollSentChange(t, source));
              return api.getTask(taskId, this.deps.snapshot(taskId));
            },
          );
          if (this.disposed || answer === NOT_SENT) return this.deps.snapshot(taskId) ?? null;
          runtime.retryAfterUntil = undefined;
          const meta: PollMeta = {
            source,
            sentAt,
            latencyMs: clock.now() - sentAt,
            intervalMs,
            answered: true,
          };
          return this.deps.observe(taskId, answer, meta) ?? null;
        },
      });
    } catch (error) {
      if (!this.disposed) this.failed(taskId, error, sentAt, source);
    } finally {
      runtime.inFlight = false;
    }
    if (source === 'poll') this.schedule(taskId);
  }

  private failed(taskId: string, error: unknown, sentAt: number, source: 'poll' | 'probe'): void {
    const { store, clock } = this.deps;
    const runtime = this.runtimes.get(taskId);
    const known = this.deps.snapshot(taskId) !== undefined;
    const classified = classifyError(error, { method: 'tasks/get', knownTask: known });
    const now = clock.now();
    if (classified.kind === 'purged' || classified.kind === 'unknown-task') {
      const task = store.getState().tasks.get(taskId);
      if (task && task.sessionId !== this.deps.sessionId()) this.endWithSession(taskId, task.sessionId);
      else this.end(taskId, known, classified);
      return;
    }
    if (classified.kind === 'unsupported') {
      // -32601: this receiver has no tasks/get; asking again would only repeat the refusal.
      updateTask(store, taskId, (task) =>
        errorChange(task, { kind: 'error', at: now, sentAt, source, error: classified }, task.backoffMs),
      );
      return;
    }
    updateTask(store, taskId, (task) => {
      const backoffMs = nextBackoff(task.backoffMs);
      if (runtime && classified.retryAfterMs) runtime.retryAfterUntil = now + classified.retryAfterMs;
      const retryInMs = Math.max(backoffMs, classified.retryAfterMs ?? 0);
      return errorChange(
        task,
        { kind: 'error', at: now, sentAt, source, error: classified, retryInMs },
        backoffMs,
      );
    });
    if (source === 'probe') this.scheduleProbe(taskId);
  }

  /** The receiver no longer has the task (purged), or never had it (unknown): stop, keep what was seen. */
  private end(taskId: string, known: boolean, error: ClassifiedError): void {
    const runtime = this.runtimes.get(taskId);
    if (runtime) {
      this.timers.clearTimeout(runtime.timer);
      this.timers.clearTimeout(runtime.probeTimer);
    }
    const at = this.deps.clock.now();
    updateTask(this.deps.store, taskId, (task) => purgedChange(task, { kind: 'purged', at, error }, known));
  }

  /**
   * The receiver does not know a task of an earlier (or another tab's) session in this one. That says the
   * session is gone, not that the receiver purged the task: kept apart from purged, and never probed again.
   */
  private endWithSession(taskId: string, sessionId: string | undefined): void {
    const runtime = this.runtimes.get(taskId);
    if (runtime) {
      this.timers.clearTimeout(runtime.timer);
      this.timers.clearTimeout(runtime.probeTimer);
    }
    const now = this.deps.clock.now();
    updateTask(this.deps.store, taskId, (task) => ({
      ...appendEntry(task, {
        kind: 'session',
        at: now,
        phase: 'ended',
        detail: `The receiver does not know this task in this session: it belongs to session ${shortId(sessionId)}, which ${task.sessionEndedAt ? 'ended' : 'is not this one'}.`,
      }),
      lifecycle: 'session-ended',
      sessionEndedAt: task.sessionEndedAt ?? (task.otherSession ? undefined : now),
      nextPollInMs: null,
    }));
  }

  /**
   * A terminal task is no longer polled, so nobody would learn that the receiver purged it. Once its ttl has
   * run out, ask now and then (backing off) until the receiver says it is gone.
   */
  scheduleProbe(taskId: string): void {
    const { store, clock } = this.deps;
    const runtime = this.runtimes.get(taskId);
    const snapshot = this.deps.snapshot(taskId);
    if (!runtime || !snapshot || typeof snapshot.ttl !== 'number' || snapshot.createdAtMs === undefined)
      return;
    // Asked in another session, -32602 would say nothing about the task itself.
    if (store.getState().tasks.get(taskId)?.sessionId !== this.deps.sessionId()) return;
    if (runtime.probes >= MAX_PURGE_PROBES || this.disposed) return;
    const { delayMs, gapMs } = nextProbe({
      expiresAtLocal: snapshot.createdAtMs + snapshot.ttl - store.getState().clockOffsetMs,
      now: clock.now(),
      probes: runtime.probes,
      lastGapMs: runtime.probeGapMs,
      pollInterval: snapshot.pollInterval,
    });
    runtime.probeGapMs = gapMs;
    this.timers.clearTimeout(runtime.probeTimer);
    runtime.probeTimer = this.timers.setTimeout(() => {
      runtime.probes++;
      void this.poll(taskId, undefined, 'probe').then(() => {
        const task = store.getState().tasks.get(taskId);
        if (task?.lifecycle === 'terminal' && !task.lastError) this.scheduleProbe(taskId);
      });
    }, delayMs);
  }

  dispose(): void {
    this.disposed = true;
    this.timers.dispose();
  }
}
