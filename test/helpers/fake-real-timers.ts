import { macrotask } from '../../src/engine/trace/replay';
import type { RealTimers } from '../../src/engine/trace/replay-clock';

/**
 * Real time under a test's control, for a replay's VirtualClock: timers fire only when advance() says, each
 * followed by the work it set off. `lateMs`: how late every timer fires, as a busy browser's do.
 */
export function fakeRealTimers(lateMs = 0) {
  let now = 1_000_000;
  let nextId = 1;
  const timers = new Map<number, { due: number; fn: () => void }>();
  const timersApi: RealTimers = {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = nextId++;
      timers.set(id, { due: now + ms + lateMs, fn });
      return id;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
  };
  return {
    timers: timersApi,
    now: () => now,
    async advance(ms: number) {
      const target = now + ms;
      for (;;) {
        let first: [number, { due: number; fn: () => void }] | undefined;
        for (const entry of timers) if (!first || entry[1].due < first[1].due) first = entry;
        if (!first || first[1].due > target) break;
        timers.delete(first[0]);
        now = Math.max(now, first[1].due);
        first[1].fn();
        await macrotask();
      }
      now = target;
    },
  };
}
