import { ClassifiedFailure } from '../mcp';
import type { Batch, Command, FromEngine, ReplyTo, ToEngine } from '../engine/messages';

/** What the bridge needs of a Worker; a MessagePort does as well (tests run the engine behind one). */
export interface EnginePort {
  postMessage(message: ToEngine): void;
  onmessage: ((event: MessageEvent<FromEngine>) => void) | null;
  /** A Worker reports here when it fails to load or dies. */
  onerror?: ((event: ErrorEvent) => void) | null;
  onmessageerror?: ((event: MessageEvent) => void) | null;
}

export type BatchListener = (batches: Batch[]) => void;

/** A hidden page gets no animation frames; batches are then applied on this timer instead. */
const HIDDEN_APPLY_MS = 250;

/**
 * The page's end of the engine: commands out with a promise for each reply, batches in. Batches are applied
 * at most once per animation frame (or on a timer while the tab is hidden, when frames stop), then
 * acknowledged, and the engine sends nothing more until then: changes coalesce in the Worker, not in a queue
 * of messages on a busy page.
 */
export class EngineBridge {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private pending: Batch[] = [];
  private frame: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<BatchListener>();

  constructor(private readonly port: EnginePort) {
    port.onmessage = (event) => this.receive(event.data);
    // A dead engine answers nothing more: every caller hears so instead of waiting for ever.
    port.onerror = (event) =>
      this.failAll(`the engine stopped: ${(event as ErrorEvent).message ?? 'unknown error'}`);
    port.onmessageerror = () => this.failAll('a message from the engine could not be read');
  }

  /** The command's reply; a failure rejects with a ClassifiedFailure, its message one line a person reads. */
  request<C extends Command>(command: C): Promise<ReplyTo<C>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      try {
        this.port.postMessage({ type: 'command', id, command });
      } catch (error) {
        this.waiting.delete(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  private failAll(reason: string): void {
    for (const waiter of this.waiting.values())
      waiter.reject(new ClassifiedFailure({ kind: 'other', message: reason }));
    this.waiting.clear();
  }

  onBatch(listener: BatchListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private receive(message: FromEngine): void {
    if (message.type === 'batch') {
      this.pending.push(message);
      this.scheduleApply();
      return;
    }
    // A reply comes after the batch that carries its effects: apply that first, so the reply's caller sees it.
    this.apply();
    const waiter = this.waiting.get(message.id);
    this.waiting.delete(message.id);
    if (!waiter) return;
    // A command that failed rejects with the engine's classified error (`classifyError` gives it back whole).
    if ('failure' in message) waiter.reject(new ClassifiedFailure(message.failure));
    else waiter.resolve(message.value);
  }

  private scheduleApply(): void {
    if (this.frame !== undefined || this.timer !== undefined) return;
    const hidden = typeof document !== 'undefined' && document.visibilityState === 'hidden';
    if (hidden || typeof requestAnimationFrame !== 'function') {
      this.timer = setTimeout(() => this.apply(), hidden ? HIDDEN_APPLY_MS : 0);
      return;
    }
    this.frame = requestAnimationFrame(() => this.apply());
    // A page hidden after the frame was asked for never gets it: the timer applies the batch then.
    this.timer = setTimeout(() => this.apply(), HIDDEN_APPLY_MS * 2);
  }

  private apply(): void {
    if (this.frame !== undefined) cancelAnimationFrame(this.frame);
    clearTimeout(this.timer);
    this.frame = undefined;
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const batches = this.pending;
    this.pending = [];
    for (const listener of this.listeners) {
      try {
        listener(batches);
      } catch (error) {
        // One broken store must not stop the others, nor the acks that keep batches coming.
        console.error('Taskscope: applying an engine batch failed', error);
      }
    }
    this.port.postMessage({ type: 'ack' });
  }
}

let engine: EngineBridge | null = null;

/** The page's one engine, started on first use. */
export function getEngine(): EngineBridge {
  engine ??= new EngineBridge(
    new Worker(new URL('../engine/engine.worker.ts', import.meta.url), {
      type: 'module',
      name: 'taskscope-engine',
    }),
  );
  return engine;
}

/** Tests hand in an engine behind a MessagePort. */
export function setEngine(next: EngineBridge | null): void {
  engine = next;
}
