import type { QueryClient } from '@tanstack/react-query';
import { classifyError, isTerminal, type ClassifiedError } from '../mcp';
import { queryKeys } from '../app/queryKeys';
import { MAX_BACKOFF_MS } from './interval';
import { appendEntry, updateTask, type TasksStore } from './store';
import type { Clock, TaskApiPort } from './tracker';

/** tasks/result is idempotent, so transport failures are retried, this many times at most. */
export const MAX_RESULT_ATTEMPTS = 6;
/** A 2025-11-25 receiver may hold tasks/result open until the task ends; give it time. */
const RESULT_TIMEOUT_MS = 5 * 60_000;

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
  isDisposed: () => boolean;
}

/**
 * Fetches each terminal task's result once and keeps it in the query cache for the life of the page. A
 * not-ready answer is recorded, never looped on; transport errors are retried with backoff.
 */
export class ResultFetcher {
  private readonly retryTimers = new Map<string, unknown>();
  private readonly requested = new Set<string>();

  constructor(private readonly deps: FetcherDeps) {}

  /** Sends tasks/result now, unless it was sent before (pass `again` to ask by hand). */
  fetch(taskId: string, again = false, attempt = 1): void {
    const { store, clock, api, queryClient, connectionId } = this.deps;
    if (this.deps.isDisposed() || (this.requested.has(taskId) && !again && attempt === 1)) return;
    this.requested.add(taskId);
    const sentAt = clock.now();
    updateTask(store, taskId, () => ({ result: { state: 'fetching', attempt } }));
    queryClient
      .fetchQuery({
        queryKey: queryKeys.taskResult(connectionId, taskId),
        // Once fetched it is kept: the receiver may purge the task, we must not lose its result.
        staleTime: Infinity,
        queryFn: () => api.getTaskResult(taskId, { timeoutMs: RESULT_TIMEOUT_MS }),
      })
      .then(
        (answer) => {
          if (this.deps.isDisposed()) return;
          const at = clock.now();
          updateTask(store, taskId, (task) => ({
            ...appendEntry(task, {
              kind: 'result',
              at,
              sentAt,
              latencyMs: at - sentAt,
              outcome: 'fetched',
              warnings: answer.warnings,
            }),
            result: { state: 'fetched', at },
            warningCount: task.warningCount + answer.warnings.length,
          }));
        },
        (error: unknown) => {
          if (!this.deps.isDisposed()) this.failed(taskId, error, sentAt, attempt);
        },
      );
  }

  private failed(taskId: string, error: unknown, sentAt: number, attempt: number): void {
    const { store, clock } = this.deps;
    const task = store.getState().tasks.get(taskId);
    const classified = classifyError(error, {
      method: 'tasks/result',
      knownTask: true,
      taskLive: !isTerminal(task?.status),
    });
    const at = clock.now();
    const final = FINAL_KINDS.has(classified.kind) || attempt >= MAX_RESULT_ATTEMPTS;
    const outcome = classified.kind === 'not-ready' ? 'not-ready' : final ? 'unavailable' : 'failed';
    const retryInMs = final ? undefined : Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (attempt - 1));
    updateTask(store, taskId, (t) => ({
      ...appendEntry(t, {
        kind: 'result',
        at,
        sentAt,
        latencyMs: at - sentAt,
        outcome,
        error: classified,
        warnings: [],
      }),
      result:
        outcome === 'not-ready'
          ? { state: 'not-ready' }
          : final
            ? { state: 'unavailable', error: classified }
            : { state: 'retrying', attempt, error: classified },
    }));
    if (retryInMs !== undefined) {
      this.retryTimers.set(
        taskId,
        clock.setTimeout(() => {
          this.retryTimers.delete(taskId);
          this.fetch(taskId, true, attempt + 1);
        }, retryInMs),
      );
    }
  }

  dispose(): void {
    for (const timer of this.retryTimers.values()) this.deps.clock.clearTimeout(timer);
    this.retryTimers.clear();
  }
}
