import { capMap } from './bounded-lists';
import { BoundedLists } from './bounded-lists';
import { cutText, isObject } from './json';
import { RELATED_TASK_META } from './protocol-rules';
import { isTaskProgressToken } from './session';
import type { Notification } from './session-types';

/** What a receiver says about a task besides its status: progress on its token, or a log line naming it. */
export type TaskActivity =
  | { kind: 'progress'; progress: number; total?: number; message?: string }
  | { kind: 'log'; level: string; logger?: string; text: string };

/** Tokens bound to task ids, at most this many (the oldest go); a receiver cannot grow it. */
const MAX_TOKENS = 5000;

/** Reports for tokens not yet bound (the create answer is still on its way), held this many at most. */
const MAX_EARLY_TOKENS = 100;
const MAX_EARLY_PER_TOKEN = 20;

export class ProgressTokens {
  private readonly byToken = new Map<string, string>();
  /** Progress on one of our tokens before its task id was known: a receiver reports as it starts. */
  private readonly early = new BoundedLists<TaskActivity>(MAX_EARLY_TOKENS, MAX_EARLY_PER_TOKEN);

  /** Binds a token to its task; returns what was reported on it before. */
  bind(token: string, taskId: string): TaskActivity[] {
    this.byToken.set(token, taskId);
    capMap(this.byToken, MAX_TOKENS);
    return this.early.take(token);
  }

  taskOf(token: unknown): string | undefined {
    return typeof token === 'string' ? this.byToken.get(token) : undefined;
  }

  /** Holds a report on a token of ours that is not bound yet. */
  hold(token: string, activity: TaskActivity): void {
    this.early.add(token, activity);
  }
}

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** Reads a progress or log notification for a task; anything else (or malformed) is not task activity. */
export function readActivity(
  notification: Notification,
  tokens: ProgressTokens,
): { taskId: string; activity: TaskActivity } | undefined {
  const params = notification.params ?? {};
  if (notification.method === 'notifications/progress') {
    const progress = num(params.progress);
    if (progress === undefined) return undefined;
    const activity: TaskActivity = {
      kind: 'progress',
      progress,
      total: num(params.total),
      message: typeof params.message === 'string' ? cutText(params.message, 500) : undefined,
    };
    const taskId = tokens.taskOf(params.progressToken);
    if (!taskId) {
      if (isTaskProgressToken(params.progressToken)) tokens.hold(params.progressToken, activity);
      return undefined;
    }
    return { taskId, activity };
  }
  if (notification.method === 'notifications/message') {
    const meta = isObject(params._meta) ? params._meta : {};
    const related = isObject(meta[RELATED_TASK_META]) ? meta[RELATED_TASK_META] : {};
    const taskId = typeof related.taskId === 'string' ? related.taskId : undefined;
    if (!taskId) return undefined;
    let text: string;
    try {
      text = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
    } catch {
      text = '(unreadable)';
    }
    return {
      taskId,
      activity: {
        kind: 'log',
        level: typeof params.level === 'string' ? cutText(params.level, 20) : 'info',
        logger: typeof params.logger === 'string' ? cutText(params.logger, 100) : undefined,
        text: cutText(text ?? '', 2000),
      },
    };
  }
  return undefined;
}
