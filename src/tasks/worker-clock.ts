import { systemClock, type Clock } from './tracker-types';

/**
 * A Clock whose timers run in a dedicated worker (timer.worker.ts), so tasks keep being polled at their
 * pollInterval in a background tab. Falls back to the page's own timers where workers are unavailable.
 */
export function createWorkerClock(): Clock {
  if (typeof Worker === 'undefined') return systemClock;
  let worker: Worker;
  try {
    worker = new Worker(new URL('./timer.worker.ts', import.meta.url), { type: 'module' });
  } catch {
    return systemClock;
  }
  const callbacks = new Map<number, () => void>();
  let nextId = 1;
  worker.onmessage = (event: MessageEvent<number>) => {
    const callback = callbacks.get(event.data);
    callbacks.delete(event.data);
    callback?.();
  };
  return {
    now: () => Date.now(),
    setTimeout: (fn, ms) => {
      const id = nextId++;
      callbacks.set(id, fn);
      worker.postMessage({ op: 'set', id, ms });
      return id;
    },
    clearTimeout: (handle) => {
      if (typeof handle !== 'number' || !callbacks.delete(handle)) return;
      worker.postMessage({ op: 'clear', id: handle });
    },
  };
}
