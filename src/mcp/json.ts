import { TASK_STATUSES } from './types';

/** Small readers for untrusted JSON, shared by the normalisers. */
export type Obj = Record<string, unknown>;
export const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export const STATUS_SET: ReadonlySet<string> = new Set(TASK_STATUSES);

/** A value as a short quotation for a warning: a receiver's junk must not become a page of text. */
export const quote = (v: unknown): string => {
  const s = typeof v === 'string' ? `'${v}'` : (JSON.stringify(v) ?? String(v));
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
};
