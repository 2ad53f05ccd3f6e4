import { useEffect } from 'react';
import { bridgeHeaders } from '../receiver/stdio-bridge-route';
import { useStdio } from '../receiver/stdio-store';
import { applySnapshot, resetConsole, useConsole } from './console-store';

/** Often enough to read stderr as it comes; each ask is one short request. */
const POLL_MS = 1000;

/**
 * Reads the console of this tab's stdio process while there is one: the lines after the last one seen, once a
 * second. The asking also tells the bridge that a page still uses the process.
 */
export function useConsolePoll(): void {
  const current = useStdio((s) => s.current);
  useEffect(() => {
    if (!current) return;
    const { name, route } = current;
    resetConsole(route.connection);
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const url = new URL(`/stdio/${name}/console`, window.location.origin);
        url.searchParams.set('after', String(useConsole.getState().lastSeq));
        const response = await fetch(url, {
          headers: bridgeHeaders(route),
          credentials: 'omit',
          cache: 'no-store',
          signal: controller.signal,
        });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        applySnapshot(route.connection, await response.json());
      } catch (error) {
        if (controller.signal.aborted) return;
        useConsole.setState({ error: `The console could not be read: ${(error as Error).message}` });
      }
      if (!controller.signal.aborted) timer = setTimeout(() => void poll(), POLL_MS);
    };
    void poll();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [current]);
}
