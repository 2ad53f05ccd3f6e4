import { capMap, type TrafficEvent } from '../mcp';
import type { RowKind, TrafficRow } from './traffic-rows';

export interface TrafficFilter {
  /** A method exactly, or '' for any. */
  method: string;
  /** Part of a task id (typed), or one task's id exactly (taskExact), or '' for any. */
  taskId: string;
  /** Set by a task's "Task traffic": that task's rows only, so t1 does not show t10's. */
  taskExact: boolean;
  kind: RowKind | 'all';
  /** Text anywhere in the request's or the answer's body, any case. */
  search: string;
}

export const NO_FILTER: TrafficFilter = {
  method: '',
  taskId: '',
  taskExact: false,
  kind: 'all',
  search: '',
};

export const isFiltered = (filter: TrafficFilter): boolean =>
  filter.method !== '' || filter.taskId.trim() !== '' || filter.kind !== 'all' || filter.search.trim() !== '';

export const sameFilter = (a: TrafficFilter, b: TrafficFilter): boolean =>
  a.method === b.method &&
  a.taskId === b.taskId &&
  a.taskExact === b.taskExact &&
  a.kind === b.kind &&
  a.search === b.search;

/** Progress tokens a filter remembers at most. */
const MAX_TOKENS = 5_000;

/** The progress token a request sent in its `_meta`, or a progress notification names. */
function progressTokenOf(message: unknown): string | undefined {
  const params = (message as { params?: { progressToken?: unknown; _meta?: { progressToken?: unknown } } })
    ?.params;
  const token = params?.progressToken ?? params?._meta?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? String(token) : undefined;
}

/**
 * A progress token as a filter keys it: with its row's connection, since every connection numbers its calls
 * from 1 and the SDK sends a call's id as its token, so another connection's progress names the same tokens.
 */
function tokenKey(row: TrafficRow): string | undefined {
  const token = progressTokenOf(row.first.message);
  return token !== undefined ? `${row.first.connectionId ?? '-'}:${token}` : undefined;
}

/** Bodies as lower-case JSON, written once per event: a search over 20,000 rows must not rewrite them on each key. */
const bodyText = new WeakMap<TrafficEvent, string>();

function textOf(event: TrafficEvent): string {
  let text = bodyText.get(event);
  if (text === undefined) {
    try {
      text = JSON.stringify(event.message).toLowerCase();
    } catch {
      text = '';
    }
    bodyText.set(event, text);
  }
  return text;
}

/**
 * One filter applied row by row, oldest first, so that it can follow a growing log: `learn` each row before
 * `matches` is asked of it or of a later one. Progress names no task, only the token its creating call sent:
 * it is that task's traffic too, and `taskOf` says which task.
 */
export class RowFilter {
  private readonly task: string;
  private readonly search: string;
  private readonly tokens = new Map<string, string>();

  constructor(
    readonly filter: TrafficFilter,
    /** The current connection (useConnection's id): "Task traffic" is that task's, not an earlier one's of the same id. */
    readonly connectionId?: number,
  ) {
    this.task = filter.taskExact ? filter.taskId : filter.taskId.trim();
    this.search = filter.search.trim().toLowerCase();
  }

  /**
   * Notes the progress token of a call of a task the filter keeps (its taskId may come with its answer).
   * Returns the token's key when it is new: progress on it tested before is the task's now.
   */
  learn(row: TrafficRow): string | undefined {
    if (this.task === '' || row.method !== 'tools/call' || row.taskId === undefined) return undefined;
    if (!this.taskMatches(row)) return undefined;
    const key = tokenKey(row);
    if (key === undefined) return undefined;
    const known = this.tokens.has(key);
    this.tokens.set(key, row.taskId);
    // A part of an id can match every call for hours: the newest calls' tokens are the ones progress still names.
    capMap(this.tokens, MAX_TOKENS);
    return known ? undefined : key;
  }

  /**
   * The token key of a progress row the filter did not let through only for want of its token: `learn` may
   * yet return that key. Undefined for anything else.
   */
  awaitsToken(row: TrafficRow): string | undefined {
    if (this.task === '' || row.method !== 'notifications/progress') return undefined;
    if (this.filter.method !== '' && this.filter.method !== row.method) return undefined;
    const key = tokenKey(row);
    return key !== undefined && !this.tokens.has(key) ? key : undefined;
  }

  /** The task the row is about: its own, or for progress, the task whose call sent its token. */
  taskOf(row: TrafficRow): string | undefined {
    return row.taskId ?? this.progressTask(row);
  }

  matches(row: TrafficRow): boolean {
    const { filter, search } = this;
    return (
      (filter.method === '' || row.method === filter.method) &&
      (this.task === '' || this.taskMatches(row) || this.progressTask(row) !== undefined) &&
      (filter.kind === 'all' || row.kind === filter.kind) &&
      (search === '' ||
        textOf(row.first).includes(search) ||
        (row.answer !== undefined && textOf(row.answer).includes(search)))
    );
  }

  private progressTask(row: TrafficRow): string | undefined {
    if (this.tokens.size === 0 || row.method !== 'notifications/progress') return undefined;
    const key = tokenKey(row);
    return key !== undefined ? this.tokens.get(key) : undefined;
  }

  private taskMatches(row: TrafficRow): boolean {
    return this.filter.taskExact
      ? row.taskId === this.task &&
          (this.connectionId === undefined || row.first.connectionId === this.connectionId)
      : (row.taskId?.includes(this.task) ?? false);
  }
}

/** How many method names the method filter offers at most: a receiver inventing names must not grow it for ever. */
export const MAX_METHODS = 200;
