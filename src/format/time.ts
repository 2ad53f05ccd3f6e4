/**
 * Every time and duration a person reads, in one form: a short duration (850 ms, 1.5 s, 2 min), a countdown to
 * the second (3 min 24 s), a wall-clock time (14:03:07.250) and a date with its time. Pure: the page, the Worker's messages and
 * the command line print the same words.
 */
const DAY_MS = 86_400_000;
const YEAR_MS = 365.25 * DAY_MS;
/** A ttl or interval beyond this is no deadline a person could wait for: shown as "effectively never". */
export const EFFECTIVELY_FOREVER_MS = 100 * YEAR_MS;

/**
 * A countdown in the page's one duration form, to the second: 52 s, 3 min 24 s, 1 h 5 min. It ticks every
 * second where a short duration (3.4 min) would sit still for six.
 */
export function formatCountdown(ms: number): string {
  if (!Number.isFinite(ms) || ms >= EFFECTIVELY_FOREVER_MS) return 'effectively never';
  if (ms >= 2 * DAY_MS) return formatMs(ms);
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  if (m > 0) return s > 0 ? `${m} min ${s} s` : `${m} min`;
  return `${s} s`;
}

/** Short human durations for latencies and intervals: 850 ms, 1.5 s, 2 min. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms) || ms >= EFFECTIVELY_FOREVER_MS)
    return Number.isFinite(ms) ? `${ms.toPrecision(3)} ms (effectively never)` : 'never';
  if (ms >= 2 * YEAR_MS) return `${(ms / YEAR_MS).toFixed(1).replace(/\.0$/, '')} years`;
  if (ms >= 2 * DAY_MS) return `${(ms / DAY_MS).toFixed(1).replace(/\.0$/, '')} days`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0).replace(/\.0$/, '')} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1).replace(/\.0$/, '')} min`;
  return `${(ms / 3_600_000).toFixed(1).replace(/\.0$/, '')} h`;
}

/**
 * A wall-clock time, one format everywhere on the page: 24-hour local time, with milliseconds where they
 * matter (observations, traffic, marks) and without where a person only needs the moment (session notes).
 */
export function formatClock(ms: number, options: { millis?: boolean } = {}): string {
  if (!Number.isFinite(ms)) return '—';
  const d = new Date(ms);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return options.millis ? `${time}.${pad(d.getMilliseconds(), 3)}` : time;
}

/** A date with its time, in the same 24-hour form as formatClock: 2026-12-01 09:54:30 (local time). */
export function formatDateTime(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${formatClock(ms)}`;
}

/** A compact local timestamp for file names: 20261201-071503. */
export function formatFileStamp(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}${pad(date.getMonth() + 1)}${pad(date.getDate())}-` +
    `${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`
  );
}
