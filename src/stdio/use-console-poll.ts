import { useEffect } from 'react';
import { bridgeHeaders } from '../receiver/stdio-bridge-route';
import { useStdio } from '../receiver/stdio-store';
import { useObserve } from '../state/observe-store';
import { applySnapshot, resetConsole, useConsole } from './console-store';

/** Often enough to read stderr as it comes; each ask is one short request. */
const POLL_MS = 1000;

/** Where the console is read from: this tab's stdio process, or a stdio server `taskscope proxy --stdio` runs. */
interface ConsoleSource {
  connection: string;
  url: string;
  headers: Record<string, string>;
}

/** The console shown: an observed stdio source's while one is observed, else this tab's stdio process's. */
export function useConsoleSource(): ConsoleSource | undefined {
  const current = useStdio((s) => s.current);
  const source = useObserve((s) => (s.news?.kind === 'stdio' ? s.source : undefined));
  const token = useObserve((s) => s.token);
  if (source !== undefined && token !== undefined)
    return {
      connection: `observed:${source}`,
      url: `/observed/console?source=${encodeURIComponent(source)}`,
      headers: { 'X-Taskscope-Relay-Token': token },
    };
  if (!current) return undefined;
  return {
    connection: current.route.connection,
    url: `/stdio/${current.name}/console`,
    headers: bridgeHeaders(current.route),
  };
}

/**
 * Reads the console shown: the lines after the last one seen, once a second. For this tab's stdio process the
 * asking also tells the bridge that a page still uses it.
 */
export function useConsolePoll(): void {
  const source = useConsoleSource();
  const connection = source?.connection;
  const url = source?.url;
  const headers = JSON.stringify(source?.headers ?? {});
  useEffect(() => {
    if (connection === undefined || url === undefined) return;
    resetConsole(connection);
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const target = new URL(url, window.location.origin);
        target.searchParams.set('after', String(useConsole.getState().lastSeq));
        const response = await fetch(target, {
          headers: JSON.parse(headers) as Record<string, string>,
          credentials: 'omit',
          cache: 'no-store',
          signal: controller.signal,
        });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        applySnapshot(connection, await response.json());
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
  }, [connection, url, headers]);
}
