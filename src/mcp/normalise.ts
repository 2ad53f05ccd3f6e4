import { TaskV1Schema } from '@modelcontextprotocol/ext-tasks/core/v1';
import { STATUS_SET, cutText, isObject, quote, type Obj } from './json';
import { schemaIssuePaths } from './protocol-rules';
import {
  isTerminal,
  type Normalised,
  type Era,
  type TaskShape,
  type TaskSnapshot,
  type TaskStatus,
  type Warning,
} from './types';

/** Beyond this a pollInterval is flagged: a receiver asking for one poll an hour is likely a unit mistake. */
export const ABSURD_POLL_INTERVAL_MS = 3_600_000;
/** Beyond this a ttl is flagged: a century is no deadline anyone will see. */
export const ABSURD_TTL_MS = 100 * 365.25 * 86_400_000;
/** Below this a pollInterval is raised to it: a hint of 0 would turn the tracker into a busy loop. */
export const MIN_POLL_INTERVAL_MS = 100;

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** The longest taskId Taskscope keeps. */
export const MAX_TASK_ID = 512;

/** A status line, not a document: longer ones are cut (and flagged) before they fill every timeline entry. */
export const MAX_STATUS_MESSAGE = 4000;

/** Task fields read one by one below, each with a warning of its own when off. */
const FIELDS_READ = new Set([
  'taskId',
  'status',
  'statusMessage',
  'createdAt',
  'lastUpdatedAt',
  'ttl',
  'pollInterval',
]);

export interface NormaliseTaskContext {
  /** The taskId the request asked about; a different one in the answer is flagged. */
  expectedTaskId?: string;
  /** The last snapshot kept for this task, to catch illegal moves and time running backwards. */
  previous?: TaskSnapshot;
  /** The generation the answer came in: 2026-07-28 tasks carry ttlMs and pollIntervalMs, flat. */
  era?: Era;
}

/** Finds the task object in any shape we accept, and says which shape it was. */
function locateTask(raw: unknown, era?: Era): { obj: Obj; shape: TaskShape } | null {
  if (!isObject(raw)) return null;
  if (raw.resultType === 'task' || era === '2026-07-28') return { obj: raw, shape: 'v2' };
  if (isObject(raw.task) && !('taskId' in raw && 'status' in raw)) {
    // `{task}` is both the create answer (2025-11-25) and the user documents' tasks/get answer.
    return { obj: raw.task, shape: 'wrapped' };
  }
  return { obj: raw, shape: 'flat' };
}

function readTime(
  obj: Obj,
  key: 'createdAt' | 'lastUpdatedAt',
  warnings: Warning[],
): { iso?: string; ms?: number } {
  const value = obj[key];
  if (value === undefined) {
    warnings.push({ code: 'bad-timestamp', message: `${key} is missing` });
    return {};
  }
  if (typeof value !== 'string' || !ISO_8601.test(value) || Number.isNaN(Date.parse(value))) {
    warnings.push({
      code: 'bad-timestamp',
      message: `${key} ${quote(value)} is not an ISO 8601 time, ignored`,
    });
    return {};
  }
  return { iso: value, ms: Date.parse(value) };
}

function readTtl(obj: Obj, shape: TaskShape, warnings: Warning[]): number | null | undefined {
  const key = shape === 'v2' ? 'ttlMs' : 'ttl';
  if (!(key in obj)) {
    warnings.push({ code: 'bad-ttl', message: `${key} is missing` });
    return undefined;
  }
  const value = obj[key];
  if (value === null) return null;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
    if (value > ABSURD_TTL_MS)
      warnings.push({
        code: 'bad-ttl',
        message: `${key} ${value.toPrecision(3)} ms is over a century: effectively no expiry`,
      });
    return value;
  }
  warnings.push({
    code: 'bad-ttl',
    message: `${key} ${quote(value)} is neither a number of ms nor null, ignored`,
  });
  return undefined;
}

function readPollInterval(obj: Obj, shape: TaskShape, warnings: Warning[]): number | undefined {
  const key = shape === 'v2' ? 'pollIntervalMs' : 'pollInterval';
  const value = obj[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    warnings.push({
      code: 'bad-poll-interval',
      message: `${key} ${quote(value)} is not a usable interval, default used`,
    });
    return undefined;
  }
  if (value < MIN_POLL_INTERVAL_MS) {
    warnings.push({
      code: 'bad-poll-interval',
      message: `${key} ${value} ms is too short, ${MIN_POLL_INTERVAL_MS} ms used`,
    });
    return MIN_POLL_INTERVAL_MS;
  }
  if (value > ABSURD_POLL_INTERVAL_MS) {
    warnings.push({
      code: 'bad-poll-interval',
      message: `${key} ${value} ms is over an hour; honoured, but check its unit`,
    });
  }
  return value;
}

function readStatus(obj: Obj, warnings: Warning[]): TaskStatus | null {
  const value = obj.status;
  if (value === undefined) {
    warnings.push({ code: 'missing-status', message: 'status is missing, ignored' });
    return null;
  }
  if (typeof value !== 'string' || !STATUS_SET.has(value)) {
    warnings.push({ code: 'unknown-status', message: `unknown status ${quote(value)}, ignored` });
    return null;
  }
  return value as TaskStatus;
}

/**
 * What only the previous snapshot can tell: a move out of a terminal status, lastUpdatedAt running backwards.
 * Exported for answers normalised without context (pushes, tasks/list), which the tracker checks again.
 */
export function sequenceWarnings(next: TaskSnapshot, previous: TaskSnapshot | undefined): Warning[] {
  const warnings: Warning[] = [];
  if (!previous) return warnings;
  if (isTerminal(previous.status) && next.status !== null && next.status !== previous.status) {
    warnings.push({
      code: 'illegal-transition',
      message: `status moved ${previous.status} → ${next.status}, but terminal statuses never change`,
    });
  }
  const before = previous.lastUpdatedAtMs;
  if (next.lastUpdatedAtMs !== undefined && before !== undefined && next.lastUpdatedAtMs < before) {
    warnings.push({
      code: 'time-went-backwards',
      message: `lastUpdatedAt went backwards (${previous.lastUpdatedAt} → ${next.lastUpdatedAt})`,
    });
  }
  return warnings;
}

/**
 * Reads a task from any answer a receiver may give (flat, `{task}`, the 2026-07-28 shape) and reports
 * everything off as warnings. Total: it never throws; `value` is null only when there is no task to speak of.
 */
export function normaliseTask(raw: unknown, ctx: NormaliseTaskContext = {}): Normalised<TaskSnapshot | null> {
  const warnings: Warning[] = [];
  try {
    const located = locateTask(raw, ctx.era);
    if (!located) {
      return {
        value: null,
        warnings: [{ code: 'not-an-object', message: `expected a task object, got ${quote(raw)}` }],
      };
    }
    const { obj, shape } = located;
    if (shape === 'v2') {
      if (ctx.era !== '2026-07-28')
        warnings.push({
          code: 'newer-protocol',
          message:
            'task in the 2026-07-28 shape (resultType "task") on a 2025-11-25 connection; read as best we can',
        });
    } else {
      // The published schema is the judge; fields read below get a specific message there instead.
      const check = TaskV1Schema.safeParse(obj);
      if (!check.success) {
        const fields = schemaIssuePaths(check.error.issues).filter(
          (path) => !FIELDS_READ.has(path.split('.')[0] ?? ''),
        );
        if (fields.length > 0) {
          warnings.push({
            code: 'schema',
            message: `does not match the 2025-11-25 Task schema at: ${fields.join(', ')}`,
          });
        }
      }
    }

    const rawId = typeof obj.taskId === 'string' && obj.taskId !== '' ? obj.taskId : undefined;
    // An id is a key, not a document: one longer than this is refused rather than kept in every map.
    if (rawId !== undefined && rawId.length > MAX_TASK_ID) {
      warnings.push({ code: 'missing-task-id', message: `taskId of ${rawId.length} characters refused` });
      return { value: null, warnings };
    }
    const taskId = rawId;
    if (!taskId) {
      if (!ctx.expectedTaskId) {
        warnings.push({ code: 'missing-task-id', message: 'taskId is missing and none was expected' });
        return { value: null, warnings };
      }
      warnings.push({
        code: 'missing-task-id',
        message: 'taskId is missing; assumed to be the one asked for',
      });
    } else if (ctx.expectedTaskId && taskId !== ctx.expectedTaskId) {
      warnings.push({
        code: 'task-id-mismatch',
        message: `asked for ${ctx.expectedTaskId} but got ${taskId}`,
      });
    }

    const status = readStatus(obj, warnings);
    const created = readTime(obj, 'createdAt', warnings);
    const updated = readTime(obj, 'lastUpdatedAt', warnings);

    const snapshot: TaskSnapshot = {
      taskId: taskId ?? (ctx.expectedTaskId as string),
      status,
      createdAt: created.iso,
      createdAtMs: created.ms,
      lastUpdatedAt: updated.iso,
      lastUpdatedAtMs: updated.ms,
      ttl: readTtl(obj, shape, warnings),
      pollInterval: readPollInterval(obj, shape, warnings),
      shape,
    };
    if (typeof obj.statusMessage === 'string') {
      snapshot.statusMessage = cutText(obj.statusMessage, MAX_STATUS_MESSAGE);
      if (obj.statusMessage.length > MAX_STATUS_MESSAGE) {
        warnings.push({
          code: 'schema',
          message: `statusMessage of ${obj.statusMessage.length} characters cut to ${MAX_STATUS_MESSAGE}`,
        });
      }
    } else if (obj.statusMessage !== undefined) {
      warnings.push({
        code: 'schema',
        message: `statusMessage ${quote(obj.statusMessage)} is not text, ignored`,
      });
    }
    warnings.push(...sequenceWarnings(snapshot, ctx.previous));
    return { value: snapshot, warnings };
  } catch (error) {
    // Only reachable through exotic inputs (getters that throw, proxies); the contract is still "never throw".
    warnings.push({ code: 'not-an-object', message: `unreadable task: ${String(error)}` });
    return { value: null, warnings };
  }
}
