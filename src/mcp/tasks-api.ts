import { LocalRefusal } from './errors';
import { normaliseTask } from './normalise';
import { normaliseResult } from './normalise-result';
import { normaliseTool, serverTaskSupport, whyNotTask } from './capabilities';
import { TASK_PROGRESS_PREFIX } from './session';
import type { Notification } from './session-types';
import { ProgressTokens, readActivity, type TaskActivity } from './task-activity';
import type { SessionLike } from './session-holder';
import type { Normalised, TaskResultSnapshot, TaskSnapshot, ToolInfo, Warning } from './types';

/** Every name a receiver may use for a task status push: the spec's and the user documents'. */
export const TASK_STATUS_NOTIFICATIONS: ReadonlySet<string> = new Set([
  'notifications/tasks/status',
  'notifications/tasks/updated',
  'notifications/tasks',
]);

/** Pages are followed up to this many; a receiver that keeps handing out cursors must not hang us. */
export const MAX_PAGES = 100;
/** Items read from one listing at most; a receiver with more is told so, not followed into the tens of thousands. */
export const MAX_LISTED = 5000;

export interface CreateTaskOptions {
  ttl?: number;
}

/** 64 random bits as hex: getRandomValues works in Workers, Node and insecure contexts alike. */
function randomScope(): string {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The task operations of MCP 2025-11-25 on one session, each returning normalised values with warnings.
 * Errors are thrown raw; callers classify them with classifyError, knowing what they asked.
 */
export class TasksApi {
  private progressSeq = 0;
  /**
   * Tokens must not repeat across reloads and tabs: a resumed session (or another tab's) may still report on
   * a token an earlier page sent, and a counter from 1 would hand that progress to a new task.
   */
  private readonly progressScope = randomScope();
  private readonly progress = new ProgressTokens();
  private readonly activityListeners = new Set<(taskId: string, activity: TaskActivity) => void>();

  constructor(private readonly session: SessionLike) {}

  get support() {
    return serverTaskSupport(this.session.describeServer().capabilities);
  }

  async listTools(): Promise<{ tools: ToolInfo[]; warnings: Warning[] }> {
    const tools: ToolInfo[] = [];
    const warnings: Warning[] = [];
    await eachPage(this.session, 'tools/list', 'tools', (item) => {
      const read = normaliseTool(item);
      warnings.push(...read.warnings);
      if (read.tool) tools.push(read.tool);
    });
    return { tools, warnings };
  }

  /** tools/call with `task`; refused here, before anything is sent, when the receiver or tool does not allow it. */
  async createTask(
    tool: ToolInfo,
    args: Record<string, unknown>,
    options: CreateTaskOptions = {},
  ): Promise<Normalised<TaskSnapshot | null>> {
    const why = whyNotTask(tool, this.support);
    if (why) throw new LocalRefusal(why);
    const task = options.ttl === undefined ? {} : { ttl: options.ttl };
    // One token per task: the receiver may report progress on it for the task's whole life.
    const progressToken = `${TASK_PROGRESS_PREFIX}${this.progressScope}-${++this.progressSeq}`;
    const raw = await this.session.request('tools/call', {
      name: tool.name,
      arguments: args,
      task,
      _meta: { progressToken },
    });
    const created = normaliseTask(raw);
    if (created.value) {
      const taskId = created.value.taskId;
      // What the receiver reported before its answer came is the task's too.
      for (const activity of this.progress.bind(progressToken, taskId))
        for (const listener of this.activityListeners) listener(taskId, activity);
    }
    return created;
  }

  /** Progress and log lines tied to a task: its progress token, or the related-task _meta of a log message. */
  onTaskActivity(listener: (taskId: string, activity: TaskActivity) => void): () => void {
    this.activityListeners.add(listener);
    const stop = this.session.onNotification((notification) => {
      const activity = readActivity(notification, this.progress);
      if (activity) listener(activity.taskId, activity.activity);
    });
    return () => {
      this.activityListeners.delete(listener);
      stop();
    };
  }

  /**
   * A plain tools/call, no task: the answer comes inline. Refused here for tools that require a task. The
   * receiver may ask a person something meanwhile (elicitation, sampling), so give it a person's time.
   */
  async callTool(
    tool: ToolInfo,
    args: Record<string, unknown>,
    options: { timeoutMs?: number } = {},
  ): Promise<Normalised<TaskResultSnapshot>> {
    if (tool.taskSupport === 'required')
      throw new LocalRefusal(`${tool.name} runs only as a task (taskSupport: required).`);
    const raw = await this.session.request(
      'tools/call',
      { name: tool.name, arguments: args },
      { timeoutMs: options.timeoutMs ?? 10 * 60_000 },
    );
    return normaliseResult(raw);
  }

  async getTask(taskId: string, previous?: TaskSnapshot): Promise<Normalised<TaskSnapshot | null>> {
    const raw = await this.session.request('tasks/get', { taskId });
    return normaliseTask(raw, { expectedTaskId: taskId, previous });
  }

  /** On 2025-11-25 receivers this blocks until the task ends; pass a longer timeout when that is wanted. */
  async getTaskResult(
    taskId: string,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<Normalised<TaskResultSnapshot>> {
    const raw = await this.session.request('tasks/result', { taskId }, options);
    return normaliseResult(raw, { expectedTaskId: taskId });
  }

  async cancelTask(taskId: string, previous?: TaskSnapshot): Promise<Normalised<TaskSnapshot | null>> {
    const raw = await this.session.request('tasks/cancel', { taskId });
    return normaliseTask(raw, { expectedTaskId: taskId, previous });
  }

  /**
   * Every page of tasks/list, up to MAX_PAGES pages or MAX_LISTED tasks, stopping at a repeated cursor;
   * `stopped` says why it stopped early. An entry that is not a task becomes a warning.
   */
  async listTasks(): Promise<{
    tasks: TaskSnapshot[];
    warnings: Warning[];
    /** Each task's own warnings, so they land on its timeline. */
    warningsFor?: Map<string, Warning[]>;
    stopped?: string;
  }> {
    if (!this.support.list)
      throw new LocalRefusal('The receiver does not offer tasks/list (no tasks.list capability).');
    const tasks: TaskSnapshot[] = [];
    const warnings: Warning[] = [];
    const warningsFor = new Map<string, Warning[]>();
    const stopped = await eachPage(this.session, 'tasks/list', 'tasks', (item) => {
      const read = normaliseTask(item);
      if (read.value) {
        tasks.push(read.value);
        if (read.warnings.length > 0) warningsFor.set(read.value.taskId, read.warnings);
      } else if (warnings.length < 100)
        warnings.push(...read.warnings.map((w) => ({ ...w, message: `tasks/list: ${w.message}` })));
    });
    return { tasks, warnings, warningsFor, stopped };
  }

  /** Status pushes under any of the three names, normalised; returns the unsubscribe. */
  onTaskStatus(
    listener: (update: Normalised<TaskSnapshot | null>, notification: Notification) => void,
  ): () => void {
    return this.session.onNotification((notification) => {
      if (!TASK_STATUS_NOTIFICATIONS.has(notification.method)) return;
      listener(normaliseTask(notification.params), notification);
    });
  }
}

/** Follows cursors; returns why it stopped before the last page, if it did. */
export async function eachPage(
  session: Pick<SessionLike, 'request'>,
  method: string,
  key: string,
  visit: (item: unknown) => void,
): Promise<string | undefined> {
  let cursor: string | undefined;
  let count = 0;
  const seen = new Set<string>();
  for (let page = 0; page < MAX_PAGES; page++) {
    const raw = (await session.request(method, cursor ? { cursor } : {})) as Record<string, unknown> | null;
    const items = raw && Array.isArray(raw[key]) ? (raw[key] as unknown[]) : [];
    for (const item of items) {
      if (count >= MAX_LISTED)
        return `${method} stopped at ${MAX_LISTED} items: the receiver lists more than Taskscope reads at once`;
      count++;
      visit(item);
    }
    const next = raw?.nextCursor;
    if (typeof next !== 'string' || next === '') return undefined;
    if (seen.has(next)) return `${method} stopped: the receiver handed out a cursor it had given before`;
    seen.add(next);
    cursor = next;
  }
  return `${method} stopped after ${MAX_PAGES} pages: the receiver keeps handing out cursors`;
}
