import { cutText, isObject } from './json';
import { RELATED_TASK_META } from './rules';
import type { Notification } from './session';

/** What a receiver says about a task besides its status: progress on its token, or a log line naming it. */
export type TaskActivity =
  | { kind: 'progress'; progress: number; total?: number; message?: string }
  | { kind: 'log'; level: string; logger?: string; text: string };

/** Tokens bound to task ids, at most this many (the oldest go); a receiver cannot grow it. */
const MAX_TOKENS = 5000;

export class ProgressTokens {
  private readonly byToken = new Map<string, string>();

  bind(token: string, taskId: string): void {
    this.byToken.set(token, taskId);
    if (this.byToken.size > MAX_TOKENS) this.byToken.delete(this.byToken.keys().next().value as string);
  }

  taskOf(token: unknown): string | undefined {
    return typeof token === 'string' ? this.byToken.get(token) : undefined;
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
    const taskId = tokens.taskOf(params.progressToken);
    const progress = num(params.progress);
    if (!taskId || progress === undefined) return undefined;
    return {
      taskId,
      activity: {
        kind: 'progress',
        progress,
        total: num(params.total),
        message: typeof params.message === 'string' ? cutText(params.message, 500) : undefined,
      },
    };
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
