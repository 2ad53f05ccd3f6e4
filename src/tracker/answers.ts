import type { QueryClient } from '@tanstack/query-core';
import { hasResult, isTerminal, sequenceWarnings, type Normalised, type TaskSnapshot } from '../mcp';
import type { ClockCheck } from './clock-offset';
import { mergeSnapshot } from './merge';
import { DEFAULT_POLL_INTERVAL_MS } from './poll-timing';
import type { TaskPoller } from './poller';
import { queryKeys } from './queries';
import type { ResultFetcher } from './result-fetcher';
import { appendEntry, noteDialect, updateTask, type ObservationSource, type TasksStore } from './task-store';
import type { SessionLifecycle } from './tracker-sessions';
import type { Clock } from './tracker-types';

/** How an answer came: a poll (with its timing), a push, tasks/list, a cancel answer, a purge probe, the check. */
export interface AnswerMeta {
  source: ObservationSource;
  sentAt?: number;
  latencyMs?: number;
  intervalMs?: number;
  /** A poll that was answered: whatever backoff the errors before it built up is over. */
  answered?: boolean;
}

export interface AnswerIntakeDeps {
  store: TasksStore;
  clock: Clock;
  queryClient: QueryClient;
  connectionId: number;
  /** The tracker's latest merged snapshots (the query cache holds the same objects). */
  snapshots: Map<string, TaskSnapshot>;
  clockCheck: ClockCheck;
  sessions: SessionLifecycle;
  poller: TaskPoller;
  results: ResultFetcher;
  openResultForInput: () => boolean;
}

/**
 * What an answer about a task means, whoever asked: the tracker's merge of polls, pushes, tasks/list entries,
 * cancel answers and probes into one ordered history, and what it does about it.
 */
export class AnswerIntake {
  constructor(private readonly deps: AnswerIntakeDeps) {}

  /**
   * Merges one answer into what we know, records it on the timeline, and acts on it: a first terminal status
   * stops polling and fetches the result in this same tick.
   */
  observe(
    taskId: string,
    update: Normalised<TaskSnapshot | null>,
    meta: AnswerMeta,
  ): TaskSnapshot | undefined {
    const at = this.deps.clock.now();
    const previous = this.deps.snapshots.get(taskId);
    const value = update.value;
    // Pushes and tasks/list entries were read without this task's history; check their sequence here.
    const warnings = [...update.warnings];
    if (value && (meta.source === 'notification' || meta.source === 'list')) {
      warnings.push(...sequenceWarnings(value, previous));
    }
    const merged = value ? mergeSnapshot(previous, value) : previous;
    if (merged) this.deps.snapshots.set(taskId, merged);
    // tasks/get is where the dialects differ (the create answer is {task} in both).
    if (value && (meta.source === 'poll' || value.shape === 'v2')) {
      noteDialect(
        this.deps.store,
        value.shape === 'v2' ? 'v2' : value.shape === 'wrapped' ? 'user-docs' : 'spec',
      );
    }
    if (value) this.deps.clockCheck.check(taskId, value, previous, at, meta.source, warnings);
    // Whatever answers now comes from the current session: the receiver knows the task here.
    const fromReceiver = meta.answered || meta.source === 'list' || meta.source === 'notification';
    const movedHere = fromReceiver && this.deps.sessions.knownHere(taskId, at);
    const task = this.deps.store.getState().tasks.get(taskId);
    if (!task) return merged;
    const becameTerminal = task.lifecycle === 'live' && isTerminal(merged?.status);
    const askedForInput =
      task.lifecycle === 'live' &&
      merged?.status === 'input_required' &&
      (previous?.status !== 'input_required' || movedHere);
    updateTask(this.deps.store, taskId, (t) => ({
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
      this.deps.queryClient.setQueryData(queryKeys.task(this.deps.connectionId, taskId), merged);
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
      this.deps.poller.schedule(taskId);
    }
    if (askedForInput && this.deps.openResultForInput()) this.deps.results.openForInput(taskId);
    return merged;
  }

  private onTerminal(taskId: string, snapshot: TaskSnapshot): void {
    this.deps.poller.stop(taskId);
    if (hasResult(snapshot.status)) this.deps.results.fetch(taskId);
    this.deps.poller.scheduleProbe(taskId);
  }
}
