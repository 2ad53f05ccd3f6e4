import { countByFilter, visibleTaskIds, type ListFilter } from '../tracker/list-filter';
import { taskSegments, type SegmentStatus } from '../tracker/timeline-model';
import type { TasksState, TrackedTask } from '../tracker/task-store';

/**
 * What the page shows of the tasks, so that only that crosses to it: a person sees about twenty rows and one
 * detail, and every poll of every other task would otherwise cost the page (and the Worker's structured
 * clone) as much as one on screen.
 */
export interface TaskViewRequest {
  /** Every task's record (the report card, an export, the command line): the page holds them all. */
  all: boolean;
  filter: ListFilter;
  query: string;
  /** The rows of the filtered, newest-first list the page draws or may soon draw: [start, end). */
  start: number;
  end: number;
  /** The task open in the detail. */
  detail?: string;
  /** The overview is open: a small summary of every task. */
  overview: boolean;
}

/** What the command line and the engine's tests get by default: every record, no list. */
export const WHOLE_VIEW: TaskViewRequest = {
  all: true,
  filter: 'all',
  query: '',
  start: 0,
  end: 0,
  overview: false,
};

/** The list as the page draws it: its length under the filter and search, and the ids of the rows it asked for. */
export interface TaskListWindow {
  /** The page holds every task's record (the request's `all`). */
  all: boolean;
  /** The request's open task, answered: its record came with this batch if the engine has one. */
  detail?: string;
  filter: ListFilter;
  query: string;
  total: number;
  start: number;
  ids: string[];
  counts: Partial<Record<ListFilter, number>>;
}

/** One task's bar in the overview: its status segments and span, without its timeline. */
export interface TaskSummary {
  taskId: string;
  tool?: string;
  /** What the bar says: its status, or purged for a task the receiver no longer has. */
  shown: SegmentStatus;
  /** Still polled: the last segment runs to the page's now. */
  live: boolean;
  /** Its session ended while it ran: `shown` is what it last was, not what it is. */
  sessionEnded?: true;
  start: number;
  end: number;
  segments: { status: SegmentStatus; start: number; end: number }[];
  /** The last poll's answer, local ms. */
  lastPollAt?: number;
}

export interface OverviewChanges {
  /** The page's copy starts again from this batch. */
  sync?: true;
  /** Every task's id in the order first tracked, when it changed. */
  order?: string[];
  changed: TaskSummary[];
}

/** The page's latest request, with a number that moves each time it changes. */
export class PageTaskView {
  request: TaskViewRequest = WHOLE_VIEW;
  version = 0;

  set(request: TaskViewRequest): void {
    this.request = request;
    this.version++;
  }
}

const sameIds = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((id, i) => id === b[i]);

const sameCounts = (a: TaskListWindow['counts'], b: TaskListWindow['counts']) => {
  const keys = Object.keys(a) as ListFilter[];
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
};

/** The list's window for a request: its filter's ids, newest first, cut to the rows asked for, and the counts. */
export function listWindow(state: TasksState, request: TaskViewRequest): TaskListWindow {
  const ids = visibleTaskIds(state, request.filter, request.query);
  return {
    all: request.all,
    ...(request.detail !== undefined ? { detail: request.detail } : {}),
    filter: request.filter,
    query: request.query,
    total: ids.length,
    start: request.start,
    ids: ids.slice(request.start, Math.max(request.start, request.end)),
    counts: countByFilter(state),
  };
}

export function sameWindow(a: TaskListWindow | undefined, b: TaskListWindow): boolean {
  return (
    a !== undefined &&
    a.all === b.all &&
    a.detail === b.detail &&
    a.filter === b.filter &&
    a.query === b.query &&
    a.total === b.total &&
    a.start === b.start &&
    sameIds(a.ids, b.ids) &&
    sameCounts(a.counts, b.counts)
  );
}

export function summarise(task: TrackedTask, now: number): TaskSummary {
  const { start, end, segments } = taskSegments(task, now);
  const gone = task.lifecycle === 'purged' || task.lifecycle === 'unknown';
  let lastPollAt: number | undefined;
  for (let i = task.entries.length - 1; i >= 0 && lastPollAt === undefined; i--) {
    const entry = task.entries[i];
    if (entry && (entry.kind === 'observation' || entry.kind === 'error') && entry.source === 'poll')
      lastPollAt = entry.at;
  }
  return {
    taskId: task.taskId,
    ...(task.tool !== undefined ? { tool: task.tool } : {}),
    shown: gone ? 'purged' : (task.status ?? 'working'),
    live: task.lifecycle === 'live',
    ...(task.lifecycle === 'session-ended' ? { sessionEnded: true as const } : {}),
    start,
    end,
    segments: segments.map((s) => ({ status: s.status, start: s.start, end: s.end })),
    ...(lastPollAt !== undefined ? { lastPollAt } : {}),
  };
}

/** The overview's summaries: each task's summed up again only when its record changed. */
export class OverviewFeed {
  private readonly from = new Map<string, TrackedTask>();
  /** The order last sent: the tracker appends to its array in place, so its length says as much as its identity. */
  private sentOrder: readonly string[] | undefined;
  private sentLength = 0;

  take(state: TasksState, on: boolean, now: number): OverviewChanges | undefined {
    if (!on) {
      this.from.clear();
      this.sentOrder = undefined;
      this.sentLength = 0;
      return undefined;
    }
    const sync = this.sentOrder === undefined;
    const changed: TaskSummary[] = [];
    for (const taskId of state.order) {
      const task = state.tasks.get(taskId);
      if (!task || this.from.get(taskId) === task) continue;
      this.from.set(taskId, task);
      changed.push(summarise(task, now));
    }
    const orderMoved = this.sentOrder !== state.order || this.sentLength !== state.order.length;
    const order = orderMoved ? state.order.slice() : undefined;
    if (orderMoved && this.from.size > state.tasks.size)
      for (const taskId of this.from.keys()) if (!state.tasks.has(taskId)) this.from.delete(taskId);
    this.sentOrder = state.order;
    this.sentLength = state.order.length;
    if (!sync && !order && changed.length === 0) return undefined;
    return { ...(sync ? { sync: true as const } : {}), ...(order ? { order } : {}), changed };
  }
}
