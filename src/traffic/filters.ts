import type { TrafficEvent } from '../mcp';
import type { RowKind, TrafficRow } from '../engine/traffic-rows';

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

/** The progress token a request sent in its `_meta`, or a progress notification names. */
function progressTokenOf(message: unknown): string | undefined {
  const params = (message as { params?: { progressToken?: unknown; _meta?: { progressToken?: unknown } } })
    ?.params;
  const token = params?.progressToken ?? params?._meta?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? String(token) : undefined;
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

/** The rows the filter lets through, in their order; the same array when nothing filters. */
export function filterRows(
  rows: readonly TrafficRow[],
  filter: TrafficFilter,
  /** The current connection (useConnection's id): "Task traffic" is that task's, not an earlier one's of the same id. */
  connectionId?: number,
): readonly TrafficRow[] {
  if (!isFiltered(filter)) return rows;
  const task = filter.taskExact ? filter.taskId : filter.taskId.trim();
  const taskMatches = (row: TrafficRow) =>
    filter.taskExact
      ? row.taskId === task && (connectionId === undefined || row.first.connectionId === connectionId)
      : (row.taskId?.includes(task) ?? false);
  const search = filter.search.trim().toLowerCase();
  // Progress names no task, only the token its creating call sent: it is that task's traffic too, and its row
  // says which task (a copy of the row: the log's own rows are not changed).
  const tokens = new Map<string, string>();
  if (task !== '')
    for (const row of rows)
      if (row.method === 'tools/call' && row.taskId !== undefined && taskMatches(row)) {
        const token = progressTokenOf(row.first.message);
        if (token !== undefined) tokens.set(token, row.taskId);
      }
  const progressTask = (row: TrafficRow) =>
    row.method === 'notifications/progress'
      ? tokens.get(progressTokenOf(row.first.message) ?? '')
      : undefined;
  const taskOrToken = (row: TrafficRow) => taskMatches(row) || progressTask(row) !== undefined;
  const shown = rows.filter(
    (row) =>
      (filter.method === '' || row.method === filter.method) &&
      (task === '' || taskOrToken(row)) &&
      (filter.kind === 'all' || row.kind === filter.kind) &&
      (search === '' ||
        textOf(row.first).includes(search) ||
        (row.answer !== undefined && textOf(row.answer).includes(search))),
  );
  if (tokens.size === 0) return shown;
  return shown.map((row) => {
    const taskId = row.taskId === undefined ? progressTask(row) : undefined;
    return taskId === undefined ? row : { ...row, taskId };
  });
}

/** How many method names the method filter offers at most: a receiver inventing names must not grow it for ever. */
const MAX_METHODS = 200;

/** The methods seen, sorted, for the method filter. */
export function methodsOf(rows: readonly TrafficRow[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) {
    if (row.method !== undefined) seen.add(row.method);
    if (seen.size >= MAX_METHODS) break;
  }
  return [...seen].sort();
}
