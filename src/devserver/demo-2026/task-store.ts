/**
 * The task runtime behind the 2026-07-28 demo endpoint. Server 2.4 has none of its own and builds a fresh
 * instance per HTTP request, so tasks, their timers and their pending questions live here, one store per
 * receiver.
 */
import { randomUUID } from 'node:crypto';
import {
  isTerminal,
  type AnswerOutcome,
  type DetailedTask,
  type InputRequest2026,
  type TaskEvent,
  type TaskHandle,
  type TaskLookup,
} from './task.js';

interface PendingInput {
  request: InputRequest2026;
  parse: (value: unknown) => unknown;
  resolve: (value: unknown) => void;
}

interface Entry {
  task: DetailedTask;
  controller: AbortController;
  expiry?: NodeJS.Timeout;
  pending: Map<string, PendingInput>;
}

export class DemoTaskStore2026 {
  private readonly tasks = new Map<string, Entry>();
  /** Ids of tasks purged at their ttl (or dropped at the cap), so tasks/get can say "expired", not "unknown". */
  private readonly expired = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly listeners = new Set<(event: TaskEvent) => void>();
  /** Ends every wait at close(), including those of requests in flight that no task owns. */
  private readonly shutdown = new AbortController();

  constructor(private readonly limits: { maxTasks?: number; maxExpired?: number } = {}) {}

  get size(): number {
    return this.tasks.size;
  }

  create(options: { ttlMs: number | null; pollIntervalMs?: number }): DetailedTask {
    if (this.shutdown.signal.aborted) throw new Error('The demo task store is closed');
    this.makeRoom();
    const now = new Date().toISOString();
    const task: DetailedTask = {
      taskId: randomUUID(),
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: options.ttlMs,
      ...(options.pollIntervalMs !== undefined && { pollIntervalMs: options.pollIntervalMs }),
    };
    const entry: Entry = { task, controller: new AbortController(), pending: new Map() };
    this.tasks.set(task.taskId, entry);
    this.scheduleExpiry(entry);
    return { ...task };
  }

  lookup(taskId: string): TaskLookup {
    const entry = this.tasks.get(taskId);
    if (entry) return { kind: 'live', task: view(entry.task) };
    return this.expired.has(taskId) ? { kind: 'expired' } : { kind: 'unknown' };
  }

  /** Starts a task's work detached from the request that created it. */
  run(taskId: string, work: (task: TaskHandle) => Promise<void>): void {
    const entry = this.tasks.get(taskId);
    if (!entry) return;
    const handle = this.handle(entry);
    work(handle).catch((error: unknown) => {
      // Aborted work is a cancelled, purged or closed task: nothing left to report to.
      if (entry.controller.signal.aborted) return;
      const message = error instanceof Error ? error.message : String(error);
      handle.fail({ code: -32603, message: `Demo receiver error: ${message}` });
    });
  }

  /** tasks/cancel: a finished task stays as it is; a running one stops and says so. */
  cancel(taskId: string): void {
    const entry = this.tasks.get(taskId);
    if (!entry || isTerminal(entry.task.status)) return;
    this.finish(entry, { status: 'cancelled', statusMessage: 'Client cancelled task execution.' });
  }

  /** tasks/update: unknown and already answered keys are ignored, as the extension asks. */
  answer(taskId: string, responses: Record<string, unknown>): AnswerOutcome {
    const entry = this.tasks.get(taskId);
    const outcome: AnswerOutcome = { accepted: [], invalid: [] };
    if (!entry || entry.task.status !== 'input_required') return outcome;
    const taken: [PendingInput, unknown][] = [];
    for (const [key, value] of Object.entries(responses)) {
      const pending = entry.pending.get(key);
      if (!pending) continue;
      const parsed = pending.parse(value);
      if (parsed === undefined) {
        outcome.invalid.push(key);
        continue;
      }
      entry.pending.delete(key);
      outcome.accepted.push(key);
      taken.push([pending, parsed]);
    }
    if (taken.length === 0) return outcome;
    const remaining = Object.fromEntries([...entry.pending].map(([key, p]) => [key, p.request]));
    this.mutate(
      entry,
      entry.pending.size > 0
        ? { inputRequests: remaining }
        : { status: 'working', inputRequests: undefined, statusMessage: 'Answer received' },
    );
    for (const [pending, parsed] of taken) pending.resolve(parsed);
    return outcome;
  }

  subscribe(listener: (event: TaskEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops every task and clears every timer: nothing of the store may outlive the receiver. */
  close(): void {
    this.shutdown.abort();
    for (const entry of this.tasks.values()) this.stop(entry);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.tasks.clear();
    this.expired.clear();
    this.listeners.clear();
  }

  private handle(entry: Entry): TaskHandle {
    const { signal } = entry.controller;
    const live = () => !signal.aborted && !isTerminal(entry.task.status);
    return {
      taskId: entry.task.taskId,
      signal,
      sleep: (ms) => this.sleepFor(ms, signal),
      working: (statusMessage) => {
        if (live()) this.mutate(entry, { status: 'working', statusMessage, inputRequests: undefined });
      },
      setPollInterval: (pollIntervalMs) => {
        if (live()) this.mutate(entry, { pollIntervalMs });
      },
      // Without a statusMessage of its own, an ended task keeps its last one, as the 2025 SDK store does.
      complete: (result, statusMessage) => {
        if (live())
          this.finish(entry, { status: 'completed', result, ...(statusMessage && { statusMessage }) });
      },
      fail: (error, statusMessage) => {
        if (live()) this.finish(entry, { status: 'failed', error, ...(statusMessage && { statusMessage }) });
      },
      ask: <T>(key: string, request: InputRequest2026, parse: (value: unknown) => T | undefined) =>
        new Promise<T>((resolve, reject) => {
          if (!live()) return reject(new Error('The task has ended'));
          const onAbort = () => reject(new Error('The task has ended'));
          signal.addEventListener('abort', onAbort, { once: true });
          entry.pending.set(key, {
            request,
            parse,
            resolve: (value) => {
              signal.removeEventListener('abort', onAbort);
              // parse() accepted it just before, so it is a T.
              resolve(value as T);
            },
          });
          const inputRequests = Object.fromEntries([...entry.pending].map(([k, p]) => [k, p.request]));
          this.mutate(entry, { status: 'input_required', inputRequests });
        }),
    };
  }

  /** A wait that close() ends too, for work inside a request as well (summarise answering inline). */
  sleepFor(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const signals = [signal, this.shutdown.signal];
      if (signals.some((s) => s.aborted)) return reject(new Error('The task has ended'));
      const settle = (done: () => void) => {
        clearTimeout(timer);
        this.timers.delete(timer);
        for (const s of signals) s.removeEventListener('abort', onAbort);
        done();
      };
      const onAbort = () => settle(() => reject(new Error('The task has ended')));
      const timer = setTimeout(() => settle(resolve), ms);
      this.timers.add(timer);
      for (const s of signals) s.addEventListener('abort', onAbort, { once: true });
    });
  }

  private finish(entry: Entry, patch: Partial<DetailedTask>): void {
    entry.pending.clear();
    this.mutate(entry, { ...patch, inputRequests: undefined });
    // Stops the work (a cancelled task's timers, a question nobody will answer); its ttl runs on.
    entry.controller.abort();
  }

  private mutate(entry: Entry, patch: Partial<DetailedTask>): void {
    const before = entry.task;
    // undefined in a patch removes the field (inputRequests once answered), so it never reaches the wire.
    const next = Object.fromEntries(
      Object.entries({ ...before, ...patch }).filter(([, value]) => value !== undefined),
    ) as unknown as DetailedTask;
    const changed =
      next.status !== before.status ||
      next.statusMessage !== before.statusMessage ||
      next.pollIntervalMs !== before.pollIntervalMs ||
      JSON.stringify(next.inputRequests) !== JSON.stringify(before.inputRequests);
    if (!changed) return;
    next.lastUpdatedAt = new Date().toISOString();
    entry.task = next;
    this.emit({ type: 'changed', task: view(next) });
  }

  /**
   * A task is purged at createdAt + ttlMs, running or ended: the protocol's ttl counts from creation, and
   * the healthy demo keeps no task beyond it.
   */
  private scheduleExpiry(entry: Entry): void {
    if (entry.expiry) clearTimeout(entry.expiry);
    const ttl = entry.task.ttlMs;
    if (ttl === null) return;
    entry.expiry = setTimeout(() => this.purge(entry.task.taskId), ttl);
  }

  private purge(taskId: string): void {
    const entry = this.tasks.get(taskId);
    if (!entry) return;
    this.stop(entry);
    this.tasks.delete(taskId);
    this.expired.add(taskId);
    const maxExpired = this.limits.maxExpired ?? 10_000;
    for (const id of this.expired) {
      if (this.expired.size <= maxExpired) break;
      this.expired.delete(id);
    }
    this.emit({ type: 'removed', taskId });
  }

  private stop(entry: Entry): void {
    if (entry.expiry) clearTimeout(entry.expiry);
    entry.expiry = undefined;
    entry.pending.clear();
    entry.controller.abort();
  }

  /** A long-running demo must not grow without end: the oldest finished task goes first, else the oldest. */
  private makeRoom(): void {
    const max = this.limits.maxTasks ?? 1000;
    while (this.tasks.size >= max) {
      let victim: string | undefined;
      for (const [id, entry] of this.tasks) {
        if (isTerminal(entry.task.status)) {
          victim = id;
          break;
        }
      }
      victim ??= this.tasks.keys().next().value;
      if (victim === undefined) return;
      this.purge(victim);
    }
  }

  private emit(event: TaskEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        console.error(error);
      }
    }
  }
}

/**
 * A copy for the wire. The completed result carries resultType "complete" because ext-tasks' client rejects a
 * completed task whose inner result lacks it (the spec's examples omit it, and both are valid to Taskscope).
 */
function view(task: DetailedTask): DetailedTask {
  const copy: DetailedTask = { ...task };
  if (task.status === 'completed' && task.result) copy.result = { resultType: 'complete', ...task.result };
  return copy;
}
