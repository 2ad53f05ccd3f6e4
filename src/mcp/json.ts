import { TASK_STATUSES } from './types';

/** Small readers for untrusted JSON, shared by the normalisers. */
export type Obj = Record<string, unknown>;
export const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export const STATUS_SET: ReadonlySet<string> = new Set(TASK_STATUSES);

/**
 * The first `max` characters of an untrusted string as a string of their own. A plain slice may keep its
 * whole parent alive (V8 sliced strings): a 4,000-character cut of a 20 MB statusMessage would hold 20 MB.
 */
export function cutText(s: string, max: number): string {
  if (s.length <= max) return s;
  return Array.from(s.slice(0, max)).join('');
}

/** A value as a short quotation for a warning: a receiver's junk must not become a page of text. */
export const quote = (v: unknown): string => {
  if (typeof v === 'string') return v.length > 55 ? `'${cutText(v, 54)}…'` : `'${v}'`;
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = Object.prototype.toString.call(v);
  }
  return s.length > 60 ? `${cutText(s, 57)}…` : s;
};

/**
 * A copy of untrusted JSON no deeper than `maxDepth` and with at most `maxNodes` values, built without
 * recursion: a receiver can nest 100,000 levels, which overflows every recursive reader (JSON.stringify, a
 * tree view, structured clone between the Worker and the page). What was cut is replaced by a note.
 */
export function limitJson(
  value: unknown,
  limits: { maxDepth: number; maxNodes: number } = { maxDepth: 64, maxNodes: 100_000 },
): { value: unknown; cut: boolean } {
  if (typeof value !== 'object' || value === null) return { value, cut: false };
  let nodes = 0;
  let cut = false;
  const put = (to: Record<string, unknown> | unknown[], key: string | number, child: unknown) => {
    // defineProperty, so a key named __proto__ stays a key and never becomes the copy's prototype.
    Object.defineProperty(to, key, { value: child, enumerable: true, writable: true, configurable: true });
  };
  const root: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
  const stack: Array<{ from: object; to: Record<string, unknown> | unknown[]; depth: number }> = [
    { from: value, to: root, depth: 1 },
  ];
  while (stack.length > 0) {
    const { from, to, depth } = stack.pop() as (typeof stack)[number];
    const keys: Array<string | number> = Array.isArray(from) ? from.map((_, i) => i) : Object.keys(from);
    for (const key of keys) {
      if (nodes >= limits.maxNodes) {
        // Past the budget: one note where the rest would have been, and nothing more.
        cut = true;
        put(to, Array.isArray(to) ? to.length : '…', '… (too many values to show)');
        break;
      }
      nodes++;
      const child = (from as Record<string | number, unknown>)[key];
      if (typeof child !== 'object' || child === null) put(to, key, child);
      else if (depth >= limits.maxDepth) {
        cut = true;
        put(to, key, '… (nested deeper than Taskscope shows)');
      } else {
        const copy: Record<string, unknown> | unknown[] = Array.isArray(child) ? [] : {};
        put(to, key, copy);
        stack.push({ from: child, to: copy, depth: depth + 1 });
      }
    }
  }
  return { value: root, cut };
}

/**
 * A JSON object as a person typed it (arguments, params): undefined for an empty field, else the object, or
 * why it cannot be sent (`notObject` when it parses to something else).
 */
export function parseJsonObject(
  text: string,
  notObject: string,
): { ok: true; value: Obj | undefined } | { ok: false; error: string } {
  if (text.trim() === '') return { ok: true, value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `Not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  return isObject(value) ? { ok: true, value } : { ok: false, error: notObject };
}
