import { useSyncExternalStore } from 'react';
import { replayNow, useReplay } from './replay-store';

/**
 * One clock for every countdown on the page: a single timer, running only while something shows time,
 * so a thousand rows tick together instead of a thousand timers drifting apart.
 */
const TICK_MS = 250;
const listeners = new Set<() => void>();
/** During a replay, the recording's time (countdowns and ages read as they did then), else the wall clock. */
const read = () => replayNow() ?? Date.now();
let now = read();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (!timer) {
    now = read();
    timer = setInterval(() => {
      now = read();
      for (const l of listeners) l();
    }, TICK_MS);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

// A seek or a pause moves the replay's time at once, not at the next tick.
useReplay.subscribe(() => {
  now = read();
  for (const l of listeners) l();
});

export function useNow(): number {
  return useSyncExternalStore(subscribe, () => now);
}
