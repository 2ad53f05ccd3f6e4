import { classifyError, type ClassifiedError, type McpSession } from '../mcp';
import type { RequestScheduler } from '../tasks/core/request-scheduler';
import type { ConnectionNews } from './messages';

/** Browser connections per origin (HTTP/1.1); the person's own actions and the stream each keep one. */
export const CONNECTIONS_PER_ORIGIN = 6;
/** Consecutive failed requests after which the connection shows as degraded. */
const DEGRADED_AFTER = 3;

/**
 * Watches one session for what the header and the receiver card say: the session lost or closed, requests
 * failing in a row (degraded, and healthy again), a notification stream that keeps closing. It also sizes
 * the request budget: the open stream holds one of the browser's connections.
 */
export function watchConnection(
  session: McpSession,
  scheduler: RequestScheduler,
  report: (news: ConnectionNews) => void,
): void {
  const streamOpens: number[] = [];
  session.onNotificationStream = (open) => {
    scheduler.setSlots(CONNECTIONS_PER_ORIGIN - (open ? 2 : 1));
    if (!open) return;
    // A stream reopened again and again is a receiver closing it at once (often with `retry: 0`): say so.
    const now = Date.now();
    streamOpens.push(now);
    while ((streamOpens[0] ?? now) < now - 60_000) streamOpens.shift();
    if (streamOpens.length >= 3)
      report({
        streamNote: `The notification stream closed ${streamOpens.length - 1} times in the last minute; Taskscope reopens it no more than every few seconds, backing off.`,
      });
  };
  session.onSessionLost = () =>
    report({
      sessionLost: {
        kind: 'session-lost',
        message:
          'The receiver no longer knows this session, and its tasks went with it: reconnect to start a new one.',
      },
    });
  session.onClose = () => report({ closed: true });
  let failures = 0;
  let failingSince = 0;
  session.onOutcome = (ok, error) => {
    if (ok) {
      if (failures >= DEGRADED_AFTER) report({ degraded: null });
      failures = 0;
      return;
    }
    // A request the person stopped (or the SDK gave up on) says nothing about the receiver's health.
    if ((error as { name?: string } | undefined)?.name === 'AbortError') return;
    if (failures === 0) failingSince = Date.now();
    failures++;
    const classified = classifyError(error);
    // One deadline missed is already a receiver not answering; other failures must repeat to count.
    if (failures >= DEGRADED_AFTER || classified.kind === 'timeout') {
      failures = Math.max(failures, DEGRADED_AFTER);
      report({ degraded: { failures, since: failingSince, error: classified } });
    }
  };
}

/**
 * A refused connection, an unknown host and a CORS refusal all reach a page as the same TypeError. Tell them
 * apart with evidence: a `no-cors` request that gets an (opaque) answer means the receiver is up and CORS is
 * the problem; one that fails too means nothing answers there. Only in a browser: Node has no CORS.
 */
export async function diagnose(url: string, error: ClassifiedError): Promise<ClassifiedError> {
  const origin = (globalThis as { location?: { origin?: string } }).location?.origin;
  if (error.kind !== 'cors-or-network' || !origin) return error;
  try {
    // no-cors allows only redirect: 'follow'; the probe reads nothing, so following is harmless.
    await fetch(url, { mode: 'no-cors', cache: 'no-store', signal: AbortSignal.timeout(5000) });
    return {
      ...error,
      message: `The receiver at ${url} answers, but does not allow this page's origin (${origin}) by CORS, or does not expose Mcp-Session-Id: allow the origin there.`,
    };
  } catch {
    return {
      ...error,
      message: `Nothing answers at ${url}: the connection was refused or the host is unknown. Is the receiver running?`,
    };
  }
}
