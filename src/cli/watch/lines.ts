/** What `taskscope watch` prints: the live status line, one line per timeline entry, the result. */
import type { Normalised, TaskResultSnapshot, TaskSnapshot } from '../../mcp';
import { formatClock, formatCountdown, formatMs } from '../../format/time';
import { ttlPhase } from '../../tracker/ttl';
import type { TimelineEntry, TrackedTask } from '../../tracker/task-store';
import { keepLines, oneLine } from '../../format/control-chars';

/** Receiver text cut to a line a terminal shows. */
const short = (text: string, max = 200) => {
  const flat = oneLine(text).trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};

/** status · message · polls · pollInterval · TTL countdown, as the page's row shows them. */
export function statusLine(
  task: TrackedTask,
  snapshot: TaskSnapshot | undefined,
  now: number,
  offsetMs: number,
): string {
  const id = oneLine(task.taskId);
  const parts = [id.length > 20 ? `${id.slice(0, 16)}…` : id];
  parts.push(task.status ?? 'pending');
  if (snapshot?.statusMessage) parts.push(short(snapshot.statusMessage, 60));
  parts.push(`${task.pollCount} poll${task.pollCount === 1 ? '' : 's'}`);
  if (snapshot?.pollInterval !== undefined) parts.push(`every ${formatMs(snapshot.pollInterval)}`);
  const ttl = ttlPhase(snapshot, now, offsetMs, task.lifecycle === 'purged');
  if (ttl.kind === 'counting') parts.push(`ttl ${formatCountdown(ttl.remainingMs)}`);
  else if (ttl.kind === 'expired') parts.push('ttl over');
  else if (ttl.kind === 'none' || ttl.kind === 'forever') parts.push('no expiry');
  return parts.join(' · ');
}

/**
 * One timeline entry as a line, or null for a poll that brought nothing new (the status line counts those).
 * `previous`: the last observation printed, to tell a change from a repeat.
 */
export function entryLine(entry: TimelineEntry, previous: TimelineEntry | undefined): string | null {
  const at = formatClock(entry.at, { millis: true });
  switch (entry.kind) {
    case 'observation': {
      const before = previous?.kind === 'observation' ? previous : undefined;
      if (before && before.status === entry.status && before.statusMessage === entry.statusMessage)
        return null;
      const message = entry.statusMessage ? `: ${short(entry.statusMessage)}` : '';
      return `${at}  ${entry.status ?? '(unreadable status)'}${message}  (${entry.source})`;
    }
    case 'error':
      return `${at}  error on ${entry.source}: ${short(entry.error.message)}${entry.retryInMs !== undefined ? `; again in ${formatMs(entry.retryInMs)}` : ''}`;
    case 'result':
      return `${at}  result ${entry.outcome} after ${formatMs(entry.latencyMs)}${entry.error ? `: ${short(entry.error.message)}` : ''}`;
    case 'purged':
      return `${at}  purged: ${short(entry.error.message)}`;
    case 'input':
      return `${at}  input ${oneLine(entry.method)} ${entry.phase}${entry.detail ? ` (${short(entry.detail)})` : ''}`;
    case 'progress':
      return `${at}  progress ${entry.progress}${entry.total !== undefined ? `/${entry.total}` : ''}${entry.message ? `: ${short(entry.message)}` : ''}`;
    case 'log':
      return `${at}  log ${entry.level}${entry.logger ? ` ${short(entry.logger, 40)}` : ''}: ${short(entry.text)}`;
    case 'session':
      return `${at}  session ${entry.phase}: ${short(entry.detail)}`;
  }
}

/** The result as text: its text parts, else its structured content or the whole result as JSON. */
export function resultText(result: Normalised<TaskResultSnapshot> | undefined): string {
  const value = result?.value.result;
  if (!value) return '(no result)';
  const content = Array.isArray(value.content) ? (value.content as unknown[]) : [];
  const texts = content.flatMap((part) =>
    typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text'
      ? [String((part as { text?: unknown }).text ?? '')]
      : [],
  );
  const body =
    texts.length > 0 ? texts.join('\n') : JSON.stringify(value.structuredContent ?? value, null, 2);
  // Receiver text: no escape sequences on the terminal, lines kept.
  const safe = keepLines(body, ' ');
  return safe.length > 20_000 ? `${safe.slice(0, 20_000)}…` : safe;
}
