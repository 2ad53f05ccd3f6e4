import type { QueryClient } from '@tanstack/query-core';
import {
  classifyError,
  isTerminal,
  type ClassifiedError,
  type Normalised,
  type TaskResultSnapshot,
  type Warning,
  backoffForAttempt,
} from '../mcp';
import { queryKeys } from './queries';
import { resultChange, resultDialect } from './record-changes';
import { noteDialect, updateTask, type ResultEntry, type ResultState, type TasksStore } from './task-store';
import type { Clock, TaskApiPort } from './tracker-types';
import type { RequestScheduler } from './request-scheduler';

/** tasks/result is idempotent, so transport failures are retried, this many times at most. */
export const MAX_RESULT_ATTEMPTS = 6;
/** A 2025-11-25 receiver may hold tasks/result open until the task ends; give it time. */
const RESULT_TIMEOUT_MS = 5 * 60_000;
/**
 * For a task already ended tasks/result has nothing to wait for: a receiver that does not answer within this
 * is not answering, and must not keep a connection (results go ahead of polls in the budget).
 */
const ENDED_RESULT_TIMEOUT_MS = 30_000;
/** Opened for input, tasks/result waits for a person and then for the rest of the task. */
const INPUT_RESULT_TIMEOUT_MS = 30 * 60_000;
/**
 * Tasks that may wait for input at once, each holding a tasks/result open. A browser gives a page about six
 * HTTP/1.1 connections per origin; the GET stream takes one and polls need the rest, so three, then a queue.
 */
export const MAX_OPEN_FOR_INPUT = 3;

/** Kinds after which asking again cannot help. */
const FINAL_KINDS = new Set<ClassifiedError['kind']>([
  'purged',
  'unknown-task',
  'unsupported',
  'auth',
  'not-ready',
]);

interface FetcherDeps {
  api: TaskApiPort;
  queryClient: QueryClient;
  connectionId: number;
  store: TasksStore;
  clock: Clock;
  scheduler: Pick<RequestScheduler, 'run'>;
  isDisposed: () => boolean;
}

/**
 * Fetches each terminal task's result once and keeps it in the query cache for the life of the page. A
 * not-ready answer is recorded, never looped on; transport errors are retried with backoff. For input_required
 * it opens tasks/result early (the 2025-11-25 way for a receiver to ask its questions), a few tasks at a time.
 */
export class ResultFetcher {
  private readonly retryTimers = new Map<string, unknown>();
  /** Tasks whose terminal fetch was sent (or will come on an input call still open). */
  private readonly requested = new Set<string>();
  /** open: a tasks/result is waiting; queued: waiting for a free connection; refused: the receiver said not-ready. */
  private readonly inputCalls = new Map<string, 'open' | 'queued' | 'refused'>();
  private readonly inputQueue: string[] = [];
  /** The tasks/result calls out now, so a person can stop waiting for one. */
  private readonly open = new Map<string, AbortController>();
  /** Calls the person stopped: their failure is recorded as that, not as an error of the receiver. */
  private readonly stoppedByPerson = new Set<string>();
  private openCount = 0;

  constructor(private readonly deps: FetcherDeps) {}

  /** Sends tasks/result now, unless it was sent before (pass `again` to ask by hand). */
  fetch(taskId: string, again = false, attempt = 1): void {
    if (this.deps.isDisposed() || (this.requested.has(taskId) && !again && attempt === 1)) return;
    this.requested.add(taskId);
    const call = this.inputCalls.get(taskId);
    if (call === 'open' && !again) return; // the call opened for input brings the result when the task ends
    if (call === 'queued') this.dequeue(taskId);
    const ended = isTerminal(this.deps.store.getState().tasks.get(taskId)?.status);
    this.send(taskId, ended ? ENDED_RESULT_TIMEOUT_MS : RESULT_TIMEOUT_MS, attempt, false);
  }

  /**
   * input_required seen: open tasks/result so the receiver can send elicitation or sampling on it. Once per
   * input round; never again for a receiver that answered not-ready (the user documents' dialect).
   */
  openForInput(taskId: string): void {
    if (this.deps.isDisposed() || this.requested.has(taskId) || this.inputCalls.has(taskId)) return;
    if (this.openCount >= MAX_OPEN_FOR_INPUT) {
      this.inputCalls.set(taskId, 'queued');
      this.inputQueue.push(taskId);
      updateTask(this.deps.store, taskId, () => ({
        result: { state: 'queued-for-input', position: this.inputQueue.length },
      }));
      return;
    }
    this.inputCalls.set(taskId, 'open');
    this.openCount++;
    updateTask(this.deps.store, taskId, () => ({ result: { state: 'open-for-input' } }));
    this.send(taskId, INPUT_RESULT_TIMEOUT_MS, 1, true);
  }

  private dequeue(taskId: string): void {
    const at = this.inputQueue.indexOf(taskId);
    if (at >= 0) this.inputQueue.splice(at, 1);
    this.inputCalls.delete(taskId);
  }

  private inputCallEnded(): void {
    this.openCount--;
    while (this.openCount < MAX_OPEN_FOR_INPUT && this.inputQueue.length > 0) {
      const next = this.inputQueue.shift() as string;
      this.inputCalls.delete(next);
      const task = this.deps.store.getState().tasks.get(next);
      if (task?.status === 'input_required' && task.lifecycle === 'live') this.openForInput(next);
    }
    this.inputQueue.forEach((id, i) =>
      updateTask(this.deps.store, id, () => ({ result: { state: 'queued-for-input', position: i + 1 } })),
    );
  }

  private send(taskId: string, timeoutMs: number, attempt: number, forInput: boolean): void {
    const { store, clock, api, queryClient, connectionId, scheduler } = this.deps;
    let sentAt = clock.now();
    if (!forInput) updateTask(store, taskId, () => ({ result: { state: 'fetching', attempt } }));
    queryClient
      // One result per task, whichever call brings it; the timeout describes the call, not the data.
      // eslint-disable-next-line @tanstack/query/exhaustive-deps
      .fetchQuery({
        queryKey: queryKeys.taskResult(connectionId, taskId),
        // Once fetched it is kept: the receiver may purge the task, we must not lose its result.
        staleTime: Infinity,
        // Results go ahead of every queued poll.
        queryFn: () =>
          scheduler.run('result', sentAt, () => {
            sentAt = clock.now();
            const controller = new AbortController();
            this.open.set(taskId, controller);
            return api.getTaskResult(taskId, { timeoutMs, signal: controller.signal });
          }),
      })
      .finally(() => this.open.delete(taskId))
      .then(
        (answer) => {
          if (forInput) this.inputCallEnded();
          if (!this.deps.isDisposed()) this.fetched(taskId, answer, sentAt);
        },
        (error: unknown) => {
          if (forInput) this.inputCallEnded();
          if (this.deps.isDisposed()) return;
          if (this.stoppedByPerson.delete(taskId)) {
            this.inputCalls.delete(taskId);
            this.requested.delete(taskId);
            this.record(taskId, sentAt, 'failed', () => ({ state: 'stopped' }), {
              error: {
                kind: 'other',
                message: 'You stopped waiting for tasks/result; its connection was freed.',
              },
            });
            return;
          }
          if (forInput) this.inputFailed(taskId, error, sentAt);
          else this.failed(taskId, error, sentAt, attempt);
        },
      );
  }

  private classify(taskId: string, error: unknown): ClassifiedError {
    const task = this.deps.store.getState().tasks.get(taskId);
    return classifyError(error, {
      method: 'tasks/result',
      knownTask: true,
      taskLive: !isTerminal(task?.status),
    });
  }

  /** One tasks/result on the timeline, with the result state it leaves the task in. */
  private record(
    taskId: string,
    sentAt: number,
    outcome: ResultEntry['outcome'],
    result: (at: number) => ResultState,
    extra: { error?: ClassifiedError; warnings?: Warning[] } = {},
  ): void {
    const at = this.deps.clock.now();
    const warnings = extra.warnings ?? [];
    const entry: ResultEntry = {
      kind: 'result',
      at,
      sentAt,
      latencyMs: at - sentAt,
      outcome,
      error: extra.error,
      warnings,
    };
    updateTask(this.deps.store, taskId, (task) => resultChange(task, entry, result(at)));
  }

  private fetched(taskId: string, answer: Normalised<TaskResultSnapshot>, sentAt: number): void {
    this.requested.add(taskId);
    this.inputCalls.delete(taskId);
    noteDialect(this.deps.store, resultDialect(answer.value.shape));
    this.record(taskId, sentAt, 'fetched', (at) => ({ state: 'fetched', at }), { warnings: answer.warnings });
  }

  private inputFailed(taskId: string, error: unknown, sentAt: number): void {
    const classified = this.classify(taskId, error);
    const notReady = classified.kind === 'not-ready';
    // not-ready: this receiver follows the user documents and never blocks; polling goes on, no second ask.
    if (notReady) this.inputCalls.set(taskId, 'refused');
    else this.inputCalls.delete(taskId);
    this.record(
      taskId,
      sentAt,
      notReady ? 'not-ready' : 'failed',
      () => ({ state: notReady ? 'not-ready' : 'none' }),
      {
        error: classified,
      },
    );
    // The task may have ended while the call was open: then the terminal fetch is due now.
    if (this.requested.has(taskId)) {
      this.requested.delete(taskId);
      this.fetch(taskId);
    }
  }

  private failed(taskId: string, error: unknown, sentAt: number, attempt: number): void {
    const classified = this.classify(taskId, error);
    const final = FINAL_KINDS.has(classified.kind) || attempt >= MAX_RESULT_ATTEMPTS;
    const outcome = classified.kind === 'not-ready' ? 'not-ready' : final ? 'unavailable' : 'failed';
    this.record(
      taskId,
      sentAt,
      outcome,
      (): ResultState =>
        outcome === 'not-ready'
          ? { state: 'not-ready' }
          : final
            ? { state: 'unavailable', error: classified }
            : { state: 'retrying', attempt, error: classified },
      { error: classified },
    );
    if (final) return;
    const retryInMs = backoffForAttempt(attempt);
    this.retryTimers.set(
      taskId,
      this.deps.clock.setTimeout(() => {
        this.retryTimers.delete(taskId);
        this.fetch(taskId, true, attempt + 1);
      }, retryInMs),
    );
  }

  /**
   * Stops waiting for an open tasks/result (a 2025-11-25 receiver holds it until the task ends): the call
   * is cancelled, its fetch ended and its connection freed. Asking again is the person's choice.
   */
  stop(taskId: string): boolean {
    const controller = this.open.get(taskId);
    if (!controller) return false;
    this.stoppedByPerson.add(taskId);
    controller.abort(new Error('stopped by the person'));
    return true;
  }

  dispose(): void {
    for (const timer of this.retryTimers.values()) this.deps.clock.clearTimeout(timer);
    this.retryTimers.clear();
  }
}
