import { capMap } from './bounded-lists';
import { LocalRefusal } from './errors';
import { isObject, limitJson } from './json';
import { normaliseTask } from './normalise';
import { normaliseResult } from './normalise-result';
import { normaliseTool, serverTaskSupport2026, whyNotTask } from './capabilities';
import { eachPage } from './tasks-api';
import { TaskListen } from './task-listen-2026';
import type { Notification } from './session-types';
import type { SessionLike } from './session-holder';
import type { Normalised, TaskResultSnapshot, TaskSnapshot, ToolInfo, Warning } from './types';
import { USER_REJECTED_CODE } from './protocol-rules';

const ERA = '2026-07-28' as const;
/** Inline results kept for the tracker's one read; a receiver cannot grow this past the number of tasks polled. */
const MAX_KEPT_RESULTS = 5000;
/** Input requests per task answered or asked at once, at most: a receiver cannot flood the inbox through one task. */
const MAX_INPUT_KEYS = 50;

/** Thrown by createTask when the receiver answered at once rather than with a task (2026-07-28 lets it). */
export class AnsweredAtOnce extends Error {
  override readonly name = 'AnsweredAtOnce';
  constructor(readonly answer: Normalised<TaskResultSnapshot>) {
    super('The receiver answered at once instead of creating a task.');
  }
}

function withoutResultType(result: Record<string, unknown>): Record<string, unknown> {
  const { resultType: _resultType, ...rest } = result;
  return rest;
}

/** The result a completing or failing tasks/get carries with it: no tasks/result in 2026-07-28. */
function inlineResult(raw: Record<string, unknown>): Normalised<TaskResultSnapshot> | undefined {
  if (raw.status === 'completed' && raw.result !== undefined) {
    // Inside, `resultType: "complete"` is what ext-tasks' client wants and the spec's examples leave out: either.
    // Anything but an object (the user documents' resource content array) is read, and said, as it is.
    const read = normaliseResult(isObject(raw.result) ? withoutResultType(raw.result) : raw.result);
    return { ...read, value: { ...read.value, shape: 'inline' } };
  }
  if (raw.status === 'failed') {
    const error = isObject(raw.error) ? raw.error : {};
    const message = typeof error.message === 'string' ? error.message : 'no error given';
    const code = typeof error.code === 'number' ? ` (${error.code})` : '';
    const warnings: Warning[] = isObject(raw.error)
      ? []
      : [{ code: 'bad-result', message: 'a failed task without its `error`' }];
    return {
      value: {
        result: { content: [{ type: 'text', text: `Failed${code}: ${message}` }], isError: true },
        isError: true,
        shape: 'inline',
      },
      warnings,
    };
  }
  return undefined;
}

/** Strips what the inbox adds for 2025-11-25 (the related-task _meta): 2026 input responses are bare results. */
function bare(result: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _dropped, ...rest } = result;
  return rest;
}

/**
 * The task operations of the 2026-07-28 tasks extension, with the same face as TasksApi (2025-11-25), so the
 * tracker and its poll discipline are the same code for both. The differences live here: a task is created
 * when the receiver chooses to answer tools/call with one; results come inline in the tasks/get that sees the
 * task end (read from there, never asked again); input requests come in tasks/get and go to the inbox, and
 * their answers back with tasks/update; cancel is an acknowledgement; pushes come over subscriptions/listen.
 */
export class TasksApi2026 {
  private readonly results = new Map<string, Normalised<TaskResultSnapshot>>();
  /** Per task, the input keys already put to a person (answered or not): each is asked once. */
  private readonly asked = new Map<string, Map<string, AbortController>>();
  /** Keys answered with tasks/update, and how many answers since still asked for them. */
  private readonly answered = new Map<string, number>();
  readonly listen: TaskListen;

  constructor(private readonly session: SessionLike) {
    this.listen = new TaskListen(session);
  }

  get support() {
    return serverTaskSupport2026(this.session.describeServer().capabilities);
  }

  async listTools(): Promise<{ tools: ToolInfo[]; warnings: Warning[] }> {
    const tools: ToolInfo[] = [];
    const warnings: Warning[] = [];
    await eachPage(this.session, 'tools/list', 'tools', (item) => {
      const read = normaliseTool(item, { era: ERA });
      warnings.push(...read.warnings);
      if (read.tool) tools.push(read.tool);
    });
    return { tools, warnings };
  }

  /** tools/call; the receiver decides whether to run it as a task. An inline answer is AnsweredAtOnce. */
  async createTask(tool: ToolInfo, args: Record<string, unknown>): Promise<Normalised<TaskSnapshot | null>> {
    const why = whyNotTask(tool, this.support);
    if (why) throw new LocalRefusal(why);
    const raw = await this.session.request('tools/call', { name: tool.name, arguments: args });
    if (isObject(raw) && raw.resultType === 'input_required')
      throw new LocalRefusal(
        'The receiver asked for input before creating the task (a multi-round tools/call), which Taskscope does not answer yet.',
      );
    if (!isObject(raw) || raw.resultType !== 'task') throw new AnsweredAtOnce(normaliseResult(raw));
    const created = normaliseTask(raw, { era: ERA });
    if (created.value) this.listen.watch(created.value.taskId);
    return created;
  }

  /** A plain tools/call. A receiver may still answer with a task; that is said, not hidden. */
  async callTool(tool: ToolInfo, args: Record<string, unknown>): Promise<Normalised<TaskResultSnapshot>> {
    // Declared without the tasks extension, so the receiver must answer inline (or refuse with -32021, for a
    // call that can only be a task) rather than start a task nobody follows.
    const raw = await this.session.request(
      'tools/call',
      { name: tool.name, arguments: args },
      { timeoutMs: 10 * 60_000, withoutTasks: true },
    );
    if (isObject(raw) && raw.resultType === 'task')
      throw new LocalRefusal(
        `The receiver answered with a task (${String(raw.taskId)}): run ${tool.name} as a task to follow it.`,
      );
    return normaliseResult(raw);
  }

  async getTask(taskId: string, previous?: TaskSnapshot): Promise<Normalised<TaskSnapshot | null>> {
    const raw = await this.session.request('tasks/get', { taskId });
    return this.absorb(taskId, raw, previous);
  }

  /** The result the completing tasks/get brought; asked again only if none was kept (a receiver that left it out). */
  async getTaskResult(taskId: string): Promise<Normalised<TaskResultSnapshot>> {
    const kept = this.results.get(taskId);
    if (kept) {
      // Read once: the tracker keeps the result from here on.
      this.results.delete(taskId);
      return kept;
    }
    const raw = await this.session.request('tasks/get', { taskId });
    this.absorb(taskId, raw);
    const read = this.results.get(taskId);
    this.results.delete(taskId);
    if (read) return read;
    return {
      value: { result: null, isError: false, shape: 'plain' },
      warnings: [{ code: 'bad-result', message: 'the ended task came without its result or error' }],
    };
  }

  /**
   * tasks/cancel is only an acknowledgement in 2026-07-28 (an empty result, as the protocol has it: no
   * warning); a push or the next poll at the task's own interval shows where it stands (no extra request:
   * the poll discipline is the same as for 2025-11-25).
   */
  async cancelTask(taskId: string): Promise<Normalised<TaskSnapshot | null>> {
    await this.session.request('tasks/cancel', { taskId });
    return { value: null, warnings: [] };
  }

  listTasks(): Promise<never> {
    return Promise.reject(new LocalRefusal('2026-07-28 has no tasks/list.'));
  }

  /** `notifications/tasks` pushes (the whole task, over subscriptions/listen), normalised. */
  onTaskStatus(
    listener: (update: Normalised<TaskSnapshot | null>, notification: Notification) => void,
  ): () => void {
    return this.session.onNotification((notification) => {
      if (notification.method !== 'notifications/tasks' || !notification.params) return;
      const taskId = notification.params.taskId;
      if (typeof taskId !== 'string') return;
      // Only for tasks polled here: a push cannot make Taskscope keep results or ask questions for ids
      // nobody follows (the tracker's flood gate decides about those first).
      listener(
        this.listen.has(taskId)
          ? this.absorb(taskId, notification.params)
          : normaliseTask(notification.params, { expectedTaskId: taskId, era: ERA }),
        notification,
      );
    });
  }

  dispose(): void {
    this.listen.dispose();
    for (const keys of this.asked.values()) for (const controller of keys.values()) controller.abort();
    this.asked.clear();
  }

  /** Reads a task answer and takes what comes with it: the inline result, the input requests. */
  private absorb(taskId: string, raw: unknown, previous?: TaskSnapshot): Normalised<TaskSnapshot | null> {
    const read = normaliseTask(raw, { expectedTaskId: taskId, previous, era: ERA });
    if (!isObject(raw) || !read.value) return read;
    const result = inlineResult(raw);
    if (result) {
      this.results.set(taskId, result);
      capMap(this.results, MAX_KEPT_RESULTS);
    }
    if (read.value.status === 'input_required' && isObject(raw.inputRequests)) {
      const lost = this.offerInput(taskId, raw.inputRequests);
      if (lost) read.warnings.push(lost);
    } else this.withdrawInput(taskId);
    if (read.value.status && ['completed', 'failed', 'cancelled'].includes(read.value.status)) {
      this.listen.unwatch(taskId);
      for (const key of this.asked.get(taskId)?.keys() ?? []) this.answered.delete(`${taskId}/${key}`);
      this.asked.delete(taskId);
    } else this.listen.watch(taskId);
    return read;
  }

  /**
   * Each input request goes to the inbox once (a key repeats on every poll until the receiver has the answer,
   * and keys are never reused); the answer goes back with tasks/update under its key. A key that is no longer
   * asked for was withdrawn.
   */
  private offerInput(taskId: string, requests: Record<string, unknown>): Warning | undefined {
    let keys = this.asked.get(taskId);
    if (!keys) {
      this.asked.set(taskId, (keys = new Map()));
      capMap(this.asked, MAX_KEPT_RESULTS);
    }
    for (const [key, controller] of keys) if (!(key in requests)) controller.abort();
    let lost: Warning | undefined;
    for (const key of Object.keys(requests)) {
      const seen = this.answered.get(`${taskId}/${key}`);
      if (seen === undefined) continue;
      this.answered.set(`${taskId}/${key}`, seen + 1);
      // Answers are taken in eventually; one still asked for three answers later was likely lost (a
      // stateless receiver whose instances do not share their tasks).
      if (seen + 1 === 3)
        lost = {
          code: 'newer-protocol',
          message: `input ${key} was answered with tasks/update but is still asked for: the answer may have been lost between the receiver's instances`,
        };
    }
    for (const [key, request] of Object.entries(requests)) {
      if (keys.has(key) || keys.size >= MAX_INPUT_KEYS) continue;
      if (!isObject(request) || typeof request.method !== 'string') continue;
      const controller = new AbortController();
      keys.set(key, controller);
      const params = limitJson(isObject(request.params) ? request.params : {}, {
        maxDepth: 32,
        maxNodes: 50_000,
      }).value as Record<string, unknown>;
      this.session
        .askPerson(
          { id: `${taskId}/${key}`, method: request.method, params, relatedTaskId: taskId },
          controller.signal,
        )
        .then(
          // A person's decline of an elicitation is a result like any other ({action: 'decline'}).
          (answer) => this.answer(taskId, key, controller, bare(answer)),
          (refusal: unknown) => {
            // A person who rejected a sampling request: 2026-07-28 has no way to say so; the key is not asked
            // again. Anything else (the inbox full, the connection gone) was no answer: ask on a later poll.
            if ((refusal as { code?: unknown }).code !== USER_REJECTED_CODE) keys.delete(key);
          },
        );
    }
    return lost;
  }

  private answer(
    taskId: string,
    key: string,
    controller: AbortController,
    response: Record<string, unknown>,
  ) {
    if (controller.signal.aborted) return;
    this.session.request('tasks/update', { taskId, inputResponses: { [key]: response } }).then(
      () => this.answered.set(`${taskId}/${key}`, 0),
      // Not taken (a deadline, a refusal of the answer): the question comes back on a later poll.
      () => this.asked.get(taskId)?.delete(key),
    );
  }

  private withdrawInput(taskId: string): void {
    const keys = this.asked.get(taskId);
    if (!keys) return;
    for (const controller of keys.values()) controller.abort();
  }
}
