import { StdioBridgeError, classifyError, type ClassifiedError, type ReceiverSession } from '../../mcp';
import type { RequestScheduler } from '../../tracker/request-scheduler';
import type { ConnectionNews } from '../messages';

/** Browser connections per origin (HTTP/1.1); the person's own actions and the stream each keep one. */
export const CONNECTIONS_PER_ORIGIN = 6;
/** Consecutive failed requests after which the connection shows as degraded. */
const DEGRADED_AFTER = 3;
/** Consecutive network failures (refused, dropped) after which the receiver is checked for reachability. */
const UNREACHABLE_AFTER = 2;

export interface WatchEvents {
  news: (news: ConnectionNews) => void;
  /** The receiver no longer knows this session. */
  sessionLost: () => void;
  /** Requests keep failing at the network level: is anything still there? */
  networkFailing: (error: ClassifiedError) => void;
  /** The stdio bridge says the server's process has ended (HTTP 410, with how it ended). */
  serverExited: (error: ClassifiedError) => void;
  /** The receiver answered 401: a sign-in, when it offers one. */
  refused401: (error: ClassifiedError) => void;
}

/**
 * Watches one session for what the header and the receiver card say: the session lost, requests failing in
 * a row (degraded, and healthy again), the network failing under it, a notification stream that keeps
 * closing. It also sizes the request budget: the open stream holds one of the browser's connections.
 * Returns the unwatch, so a session being replaced says nothing more.
 */
export function watchConnection(
  session: ReceiverSession,
  scheduler: RequestScheduler,
  events: WatchEvents,
): () => void {
  const streamOpens: number[] = [];
  let refusedSaid = false;
  session.onNotificationStream = (open) => {
    scheduler.setSlots(CONNECTIONS_PER_ORIGIN - (open ? 2 : 1));
    // 2026-07-28 listen streams are reopened on purpose whenever the set of live tasks changes: not a fault.
    if (session.era === '2026-07-28') return;
    if (!open) {
      // A receiver with no GET stream (405: stateless) can push nothing outside a request's own answer.
      if (!refusedSaid && session.era === '2025-11-25' && streamOpens.length === 0) {
        refusedSaid = true;
        events.news({
          streamNote:
            'The receiver offers no notification stream (GET refused): no pushes outside tasks/result; polling carries on.',
        });
      }
      return;
    }
    // A stream reopened again and again is a receiver closing it at once (often with `retry: 0`): say so.
    const now = Date.now();
    streamOpens.push(now);
    while ((streamOpens[0] ?? now) < now - 60_000) streamOpens.shift();
    if (streamOpens.length >= 3)
      events.news({
        streamNote: `The notification stream closed ${streamOpens.length - 1} times in the last minute; Taskscope reopens it no more than every few seconds, backing off.`,
      });
  };
  session.onSessionLost = () => events.sessionLost();
  let failures = 0;
  let networkFailures = 0;
  let failingSince = 0;
  session.onOutcome = (ok, error) => {
    if (error instanceof StdioBridgeError && error.status === 410)
      return events.serverExited(classifyError(error));
    const classified = error === undefined ? undefined : classifyError(error, { method: 'tasks/get' });
    // A 4xx counts as answered (ok), but a 401 stops the connection until someone signs in.
    if (classified?.kind === 'auth' && classified.httpStatus === 401) events.refused401(classified);
    if (ok || !classified) {
      if (failures >= DEGRADED_AFTER) events.news({ degraded: null });
      failures = 0;
      networkFailures = 0;
      return;
    }
    // A request the person stopped (or the SDK gave up on) says nothing about the receiver's health.
    if ((error as { name?: string } | undefined)?.name === 'AbortError') return;
    if (failures === 0) failingSince = Date.now();
    failures++;
    if (classified.kind === 'cors-or-network' && ++networkFailures >= UNREACHABLE_AFTER)
      events.networkFailing(classified);
    // One deadline missed is already a receiver not answering; other failures must repeat to count.
    if (failures >= DEGRADED_AFTER || classified.kind === 'timeout') {
      failures = Math.max(failures, DEGRADED_AFTER);
      events.news({ degraded: { failures, since: failingSince, error: classified } });
    }
  };
  return () => {
    session.onNotificationStream = undefined;
    session.onSessionLost = undefined;
    session.onOutcome = undefined;
  };
}

const pageOrigin = () => (globalThis as { location?: { origin?: string } }).location?.origin;

/**
 * Does anything answer at `url`? In a browser a `no-cors` request gets an opaque answer from any server that
 * answers at all, whatever its CORS; in Node (tests) a plain request does. Either way only the fact of an
 * answer counts, never its content.
 */
export async function answersAt(url: string, timeoutMs = 5000): Promise<boolean> {
  try {
    // no-cors allows only redirect: 'follow'; the probe reads nothing, so following is harmless.
    const response = await fetch(url, {
      ...(pageOrigin() ? { mode: 'no-cors' as const } : {}),
      cache: 'no-store',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel().catch(() => undefined);
    return true;
  } catch {
    return false;
  }
}

/**
 * A refused connection, an unknown host and a CORS refusal all reach a page as the same TypeError. Tell them
 * apart with evidence: a `no-cors` request that gets an (opaque) answer means the receiver is up and CORS is
 * the problem; one that fails too means nothing answers there. Only in a browser: Node has no CORS.
 */
export async function diagnose(url: string, error: ClassifiedError): Promise<ClassifiedError> {
  const origin = pageOrigin();
  if (error.kind !== 'cors-or-network' || !origin || error.diagnosis) return error;
  if (await answersAt(url))
    return {
      ...error,
      diagnosis: 'cors',
      message: `The receiver at ${url} answers, but does not allow this page's origin (${origin}) by CORS, or does not expose Mcp-Session-Id. Allow the origin there, or connect through Taskscope's local relay.`,
    };
  return {
    ...error,
    diagnosis: 'unreachable',
    message: `Nothing answers at ${url}: the connection was refused or the host is unknown. Is the receiver running?`,
  };
}
