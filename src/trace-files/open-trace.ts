import { getEngine } from '../bridge/engine-bridge';
import type { ReplaySpeed } from '../engine/messages';
import { MAX_TRACE_BYTES } from '../engine/trace/limits';
import { startingConnection, useConnection } from '../state/connection-store';
import { useReplay } from '../state/replay-store';
import { endObserving } from '../state/observe-store';
import { useSelection } from '../state/selection-store';
import { startPageRecords } from '../tasks/page-records';
import { demoReceiverUrl, receiverParam } from '../state/address-bar';

const refuse = (errors: string[]) => useReplay.setState({ errors, warnings: undefined, opening: false });

/** The page's stores start clean for a replay (or a seek), under a new connection id. */
function freshConnection(): number {
  const id = useConnection.getState().id + 1;
  useReplay.setState({ connectionId: id });
  endObserving();
  startPageRecords('none');
  return id;
}

/**
 * Replays a trace from its text. The engine checks all of it (size, JSON, format, version, schema) off the
 * page's thread, and holds it; only once it has accepted the file does the page start clean for the replay,
 * so a refused file leaves the live connection, and what the page shows of it, as they were.
 */
export async function openTraceText(
  text: string,
  speed: ReplaySpeed = useReplay.getState().speed,
  source?: string,
  /** The task open is the recording's (the address named both): it stays open. */
  keepTask = false,
): Promise<boolean> {
  useReplay.setState({ opening: true, errors: undefined, warnings: undefined });
  const checked = await getEngine().request({ type: 'replayCheck', trace: text });
  if (!checked.ok) {
    refuse(checked.errors);
    return false;
  }
  const before = useConnection.getState();
  useReplay.setState((s) => ({
    // A trace opened during a replay keeps the live receiver the first one left.
    live: s.live ?? {
      url: before.url || demoReceiverUrl(),
      headers: before.headers,
    },
  }));
  const id = freshConnection();
  startingConnection(id, checked.info.receiverUrl, {});
  const selection = useSelection.getState().selection;
  if ((selection.kind === 'task' && !keepTask) || selection.kind === 'tool')
    useSelection.getState().select({ kind: 'none' });
  const reply = await getEngine().request({ type: 'replay', connectionId: id, speed });
  if (!reply.ok) {
    useReplay.setState({ connectionId: undefined });
    refuse(reply.errors);
    return false;
  }
  useReplay.setState({ info: reply.info, speed, warnings: reply.warnings, opening: false, source });
  // A replay with nothing open shows itself: its most telling task, from the first moment it appears.
  if (useSelection.getState().selection.kind === 'none' && reply.info.featuredTaskId)
    useSelection.getState().select({ kind: 'task', taskId: reply.info.featuredTaskId });
  return true;
}

export async function openTraceFile(file: File): Promise<boolean> {
  if (file.size > MAX_TRACE_BYTES) {
    refuse([`${file.name} is larger than ${MAX_TRACE_BYTES / 1024 / 1024} MB: not opened`]);
    return false;
  }
  try {
    return await openTraceText(await file.text());
  } catch (error) {
    refuse([`${file.name} could not be read: ${error instanceof Error ? error.message : String(error)}`]);
    return false;
  }
}

/**
 * Where `?trace=` may load from: this page's own origin only. A trace from elsewhere would make a link
 * fetch (and show) whatever another site serves under this page's name; the person can download it and open
 * the file instead. Returns the URL, or why it is refused.
 */
export function sameOriginTraceUrl(raw: string, base = window.location.href): URL | string {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return `"${raw.slice(0, 200)}" is not a URL`;
  }
  const origin = new URL(base).origin;
  if (url.origin !== origin)
    return `A trace is opened from this page's own origin (${origin}) only, not from ${url.origin.slice(0, 200)}: download it and open the file (Open trace, or drop it on the page).`;
  return url;
}

/**
 * The body as text, or undefined once it passes `maxBytes`: counted as it streams in, so a server that sends
 * no content-length (or a false one) cannot make the page hold more.
 */
export async function readCapped(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join('');
}

export async function openTraceUrl(
  raw: string,
  speed: ReplaySpeed = useReplay.getState().speed,
  keepTask = false,
): Promise<boolean> {
  const url = sameOriginTraceUrl(raw);
  if (typeof url === 'string') {
    refuse([url]);
    return false;
  }
  useReplay.setState({ opening: true, errors: undefined });
  try {
    const response = await fetch(url, { credentials: 'same-origin', redirect: 'error' });
    if (!response.ok) {
      refuse([`${url.pathname} answered HTTP ${response.status}`]);
      return false;
    }
    const text = await readCapped(response, MAX_TRACE_BYTES);
    if (text === undefined) {
      refuse([`${url.pathname} is larger than ${MAX_TRACE_BYTES / 1024 / 1024} MB: not opened`]);
      return false;
    }
    return await openTraceText(text, speed, raw, keepTask);
  } catch (error) {
    refuse([
      `${url.pathname} could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
    ]);
    return false;
  }
}

/** The `?trace=` of a page load, if any: then the page replays it instead of connecting. */
export function initialTraceUrl(search = window.location.search): string | null {
  return new URLSearchParams(search).get('trace');
}

/** `&speed=1`, `4` or `instant` beside `?trace=`; 4× otherwise, so a demo is seen whole in seconds. */
export function initialReplaySpeed(search = window.location.search): ReplaySpeed {
  const speed = new URLSearchParams(search).get('speed');
  return speed === '1' ? 1 : speed === 'instant' ? 'instant' : 4;
}

/** Starts the replay again at `at` (virtual time): the stores start clean and fill up to there at once. */
export async function seekReplay(at: number): Promise<void> {
  const { info, speed, news } = useReplay.getState();
  if (!info) return;
  // Scrubbing a paused replay leaves it paused there; from the end, or while playing, it plays on.
  const paused = news !== undefined && !news.playing && !news.ended;
  // Seeking is for watching from there: an instant replay goes on at 4× after it.
  const next = speed === 'instant' ? 4 : speed;
  useReplay.setState({ speed: next });
  const id = freshConnection();
  useConnection.setState({ id });
  await getEngine().request({ type: 'replaySeek', connectionId: id, at, speed: next, paused });
}

export function playReplay(): void {
  const { news, info } = useReplay.getState();
  // At the end, play starts over.
  if (news?.ended && info) {
    void seekReplay(info.startedAt);
    return;
  }
  void getEngine().request({ type: 'replayControl', action: 'play' });
}

export function pauseReplay(): void {
  void getEngine().request({ type: 'replayControl', action: 'pause' });
}

export function setReplaySpeed(speed: ReplaySpeed): void {
  useReplay.setState({ speed });
  void getEngine().request({ type: 'replaySpeed', speed });
}

/** Back to the live receiver the page was on: a fresh page load of its address, which connects as always. */
export function leaveReplay(): void {
  const server = receiverParam(useReplay.getState().live?.url ?? '');
  window.location.assign(server === undefined ? '/' : `/?server=${encodeURIComponent(server)}`);
}

export function dismissTraceErrors(): void {
  useReplay.setState({ errors: undefined });
}
