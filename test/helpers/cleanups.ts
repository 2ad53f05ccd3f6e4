import { afterEach } from 'vitest';
import { startDemoReceiver } from './receivers';

/**
 * What a test started (receivers, engines), stopped after it, last first, whether it passed or not: every test
 * that starts a server stops it. Call at the top of a file; the returned function registers one stop.
 */
export function stopAfterEach(): (stop: () => Promise<void>) => void {
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (stops.length > 0) await stops.pop()?.();
  });
  return (stop) => {
    stops.push(stop);
  };
}

/** The demo receiver for one test, stopped after it by `later` (from stopAfterEach). */
export async function demoFor(later: (stop: () => Promise<void>) => void) {
  const receiver = await startDemoReceiver();
  later(receiver.close);
  return receiver;
}
