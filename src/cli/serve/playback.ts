/**
 * The served tasks: each goes through its plan's steps, by the clock (the recorded gaps divided by `speed`) or,
 * with `step`, one step each time the person asks. A step with questions waits for their answers. At most
 * `maxTasks` are kept; beyond that the oldest goes (an ended one first), so a client in a loop cannot grow it.
 */
import { randomUUID } from 'node:crypto';
import { chainTimeout } from '../../tracker/tracker-types';
import { TERMINAL, type Plan, type Question, type Status, type Step } from './recording';

/** A recorded gap after an answer shorter than this was the receiver's reaction time, not a pause. */
const IMMEDIATE_MS = 50;

export interface ServedTask {
  readonly taskId: string;
  readonly plan: Plan;
  readonly sessionId?: string;
  readonly createdAt: number;
  index: number;
  updatedAt: number;
  cancelled: boolean;
  /** Questions of the current step not answered yet, by key. */
  waiting: Map<string, Question>;
}

export type PlaybackEvent =
  | { type: 'changed'; task: ServedTask }
  | { type: 'asked'; task: ServedTask; question: Question }
  | { type: 'removed'; task: ServedTask };

export interface PlaybackOptions {
  speed: number;
  /** Steps only when `step()` is called (the terminal's Enter), never by the clock. */
  step?: boolean;
  maxTasks?: number;
}

export interface CurrentState {
  status: Status;
  statusMessage?: string;
  pollInterval: number;
}

export class Playback {
  private readonly tasks = new Map<string, ServedTask>();
  private readonly timers = new Map<string, { cancel: () => void }>();
  private readonly listeners = new Set<(event: PlaybackEvent) => void>();

  constructor(private readonly options: PlaybackOptions) {}

  get size(): number {
    return this.tasks.size;
  }

  get(taskId: string): ServedTask | undefined {
    return this.tasks.get(taskId);
  }

  all(): ServedTask[] {
    return [...this.tasks.values()];
  }

  subscribe(listener: (event: PlaybackEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(plan: Plan, sessionId?: string): ServedTask {
    this.makeRoom();
    const now = Date.now();
    const task: ServedTask = {
      taskId: randomUUID(),
      plan,
      sessionId,
      createdAt: now,
      index: 0,
      updatedAt: now,
      cancelled: false,
      waiting: new Map(),
    };
    this.tasks.set(task.taskId, task);
    this.enter(task, 0, false);
    return task;
  }

  current(task: ServedTask): CurrentState {
    const step = this.stepOf(task);
    const interval = step.pollInterval ?? task.plan.pollInterval;
    const pollInterval = this.options.step
      ? interval
      : Math.max(50, Math.round(interval / this.options.speed));
    if (task.cancelled)
      return { status: 'cancelled', statusMessage: 'Cancelled by the client', pollInterval };
    return { status: step.status, statusMessage: step.statusMessage, pollInterval };
  }

  ended(task: ServedTask): boolean {
    return TERMINAL.has(this.current(task).status);
  }

  /** Resolves when the task has ended, or with false when it was dropped (or `signal` aborted) first. */
  whenEnded(task: ServedTask, signal?: AbortSignal): Promise<boolean> {
    if (this.ended(task)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const settle = (ended: boolean) => {
        off();
        signal?.removeEventListener('abort', onAbort);
        resolve(ended);
      };
      const onAbort = () => settle(false);
      const off = this.subscribe((event) => {
        if (event.task !== task) return;
        if (event.type === 'removed') settle(false);
        else if (event.type === 'changed' && this.ended(task)) settle(true);
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  cancel(task: ServedTask): boolean {
    if (this.ended(task)) return false;
    this.stopTimer(task);
    task.cancelled = true;
    task.waiting.clear();
    task.updatedAt = Date.now();
    this.emit({ type: 'changed', task });
    return true;
  }

  /** An answer to one of the current step's questions; the last answer moves the task on. */
  answer(task: ServedTask, key: string): boolean {
    if (!task.waiting.delete(key)) return false;
    if (task.waiting.size === 0 && !this.ended(task)) {
      const question = this.stepOf(task).questions.find((q) => q.key === key);
      const next = task.plan.steps[task.index + 1];
      const recordedGap = next ? next.at - (question?.answeredAt ?? this.stepOf(task).at) : 0;
      // A receiver that reacted to the answer at once (the gap is its own latency) reacts at once here too, so a
      // poll the client sends right after its answer sees the next status, as it would have.
      if (this.options.step || recordedGap < IMMEDIATE_MS) this.enter(task, task.index + 1, true);
      else this.schedule(task, recordedGap / this.options.speed);
    }
    return true;
  }

  /** --step: every task that is neither ended nor waiting for an answer moves to its next recorded status. */
  step(): number {
    let moved = 0;
    for (const task of this.tasks.values()) {
      if (this.ended(task) || task.waiting.size > 0) continue;
      if (task.index + 1 >= task.plan.steps.length) continue;
      this.enter(task, task.index + 1, true);
      moved++;
    }
    return moved;
  }

  close(): void {
    for (const timer of this.timers.values()) timer.cancel();
    this.timers.clear();
    this.tasks.clear();
    this.listeners.clear();
  }

  private stepOf(task: ServedTask): Step {
    return task.plan.steps[task.index] ?? { offsetMs: 0, at: 0, status: 'working', questions: [] };
  }

  private enter(task: ServedTask, index: number, announce: boolean): void {
    if (index >= task.plan.steps.length || !this.tasks.has(task.taskId)) return;
    this.stopTimer(task);
    task.index = index;
    task.updatedAt = Date.now();
    const step = this.stepOf(task);
    task.waiting = new Map(step.questions.map((q) => [q.key, q]));
    if (announce) this.emit({ type: 'changed', task });
    for (const question of step.questions) this.emit({ type: 'asked', task, question });
    if (task.waiting.size > 0 || this.options.step) return;
    const next = task.plan.steps[index + 1];
    if (next) this.schedule(task, (next.offsetMs - step.offsetMs) / this.options.speed);
  }

  private schedule(task: ServedTask, ms: number): void {
    this.stopTimer(task);
    this.timers.set(
      task.taskId,
      chainTimeout(() => {
        this.timers.delete(task.taskId);
        this.enter(task, task.index + 1, true);
      }, ms),
    );
  }

  private stopTimer(task: ServedTask): void {
    this.timers.get(task.taskId)?.cancel();
    this.timers.delete(task.taskId);
  }

  private makeRoom(): void {
    const max = this.options.maxTasks ?? 1000;
    while (this.tasks.size >= max) {
      const victim = this.all().find((t) => this.ended(t)) ?? this.all()[0];
      if (!victim) return;
      this.stopTimer(victim);
      this.tasks.delete(victim.taskId);
      this.emit({ type: 'removed', task: victim });
    }
  }

  private emit(event: PlaybackEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }
}
