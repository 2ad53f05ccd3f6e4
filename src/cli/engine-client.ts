/**
 * The engine (the same EngineHost the page's Worker runs) in this Node process, with the page's side of the
 * protocol kept the way the page keeps it: the tasks store, snapshots, results, traffic, the inbox and the
 * connection's health, all from the batches. `check` and `watch` are commands to it, as the page's buttons are.
 */
import { EngineHost, type HostOptions } from '../engine/host';
import type { Batch, Command, FromEngine, Health, InboxEvent, ReplyTo } from '../engine/messages';
import type { ActiveCheckState } from '../rules/report-types';
import {
  ClassifiedFailure,
  type Normalised,
  type TaskResultSnapshot,
  type TaskSnapshot,
  type TrafficEvent,
} from '../mcp';
import { applyTaskChanges } from '../tracker/task-changes';
import { createTasksStore } from '../tracker/task-store';

/** Traffic kept for the card's rules and the trace; past this, the oldest go (the page's log has a cap too). */
const MAX_TRAFFIC = 20_000;

export class EngineClient {
  readonly host: EngineHost;
  readonly tasks = createTasksStore();
  readonly snapshots = new Map<string, TaskSnapshot>();
  readonly results = new Map<string, Normalised<TaskResultSnapshot>>();
  readonly traffic: TrafficEvent[] = [];
  readonly inbox: InboxEvent[] = [];
  health: Health | undefined;
  /** Set while the command answers Ctrl-C itself (watch): what alsoClose named is then left to its clean-up. */
  interruptHandled = false;
  /** For a stdio server: how it ended, once it has (a task on it cannot be followed further). */
  stdioEnded: () => string | undefined = () => undefined;
  /** The URL the engine connected to (for a stdio server, its bridge's: the page records the same form). */
  url: string | undefined;
  check: ActiveCheckState | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners = new Set<(batch: Batch) => void>();
  private readonly closers: Array<() => Promise<void>> = [];

  /** `checkTiming`: the active check's waits, shortened by tests (the defaults are a person's). */
  constructor({ checkTiming }: Pick<HostOptions, 'checkTiming'> = {}) {
    // History is the page's (IndexedDB); a command keeps what it observed in memory only.
    this.host = new EngineHost((message) => this.receive(message), {
      history: async () => null,
      checkTiming,
    });
    // The engine sends traffic only to a client that mirrors its log (the page does while it shows it); a
    // command judges the rules from every message, so it mirrors from the start.
    void this.request({ type: 'trafficMirror', on: true });
  }

  request<C extends Command>(command: C): Promise<ReplyTo<C>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.host.receive({ type: 'command', id, command });
    });
  }

  /** Called after each batch has been applied to the client's state. */
  onBatch(listener: (batch: Batch) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The first value `read` gives, at once or after a batch; `late()` when `ms` pass without one. */
  until<T>(read: () => T | undefined, ms: number, late: () => T): Promise<T> {
    const ready = read();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve) => {
      const finish = (value: T) => {
        clearTimeout(timer);
        stop();
        resolve(value);
      };
      const timer = setTimeout(() => finish(late()), ms);
      const stop = this.onBatch(() => {
        const value = read();
        if (value !== undefined) finish(value);
      });
    });
  }

  private receive(message: FromEngine): void {
    if (message.type === 'reply') {
      const waiter = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (!waiter) return;
      if ('failure' in message) waiter.reject(new ClassifiedFailure(message.failure));
      else waiter.resolve(message.value);
      return;
    }
    this.apply(message);
    // Acknowledged outside the engine's own call stack, as the page does after its frame.
    setImmediate(() => this.host.receive({ type: 'ack' }));
  }

  private apply(batch: Batch): void {
    if (batch.tasks) applyTaskChanges(this.tasks, batch.tasks);
    for (const [taskId, snapshot] of batch.snapshots) this.snapshots.set(taskId, snapshot);
    for (const [taskId, result] of batch.results) this.results.set(taskId, result);
    this.traffic.push(...batch.traffic);
    if (this.traffic.length > MAX_TRAFFIC) this.traffic.splice(0, this.traffic.length - MAX_TRAFFIC);
    this.inbox.push(...batch.inbox);
    if (batch.connection?.health) this.health = batch.connection.health;
    if (batch.connection?.check) this.check = batch.connection.check;
    for (const listener of this.listeners) listener(batch);
  }

  /** Something this client's commands started (a stdio server) that ends with it. */
  alsoClose(close: () => Promise<void>): void {
    this.closers.push(close);
  }

  /** Ends the session on the receiver, stops every timer the engine holds, then what alsoClose named. */
  async close(): Promise<void> {
    let failure: unknown;
    await this.request({ type: 'disconnect' }).catch((error: unknown) => (failure = error));
    // Each one is stopped even when another fails to: a stdio server must not outlive the command.
    for (const close of this.closers.splice(0).reverse())
      await close().catch((error: unknown) => (failure ??= error));
    if (failure !== undefined) throw failure;
  }
}
