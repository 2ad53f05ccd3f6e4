/** The five statuses of MCP 2025-11-25; anything else a receiver sends is flagged, never adopted. */
export const TASK_STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);
export const isTerminal = (status: TaskStatus | null | undefined): boolean =>
  status != null && TERMINAL_STATUSES.has(status);
/** Statuses whose result tasks/result can give (a cancelled task has none). */
export const hasResult = (status: TaskStatus | null | undefined): boolean =>
  status === 'completed' || status === 'failed';

/** Which wire shape a task arrived in, so the UI can say which dialect a receiver speaks. */
export type TaskShape = 'flat' | 'wrapped' | 'create' | 'v2';

export interface Warning {
  code:
    | 'not-an-object'
    | 'missing-task-id'
    | 'task-id-mismatch'
    | 'unknown-status'
    | 'missing-status'
    | 'bad-timestamp'
    | 'bad-ttl'
    | 'bad-poll-interval'
    | 'illegal-transition'
    | 'time-went-backwards'
    | 'schema'
    | 'bad-result'
    | 'newer-protocol';
  message: string;
}

/** A task as Taskscope keeps it: every field checked, times parsed, nothing trusted blindly. */
export interface TaskSnapshot {
  taskId: string;
  /** null when the receiver sent a status we do not know (see warnings); keep the previous one. */
  status: TaskStatus | null;
  statusMessage?: string;
  createdAt?: string;
  createdAtMs?: number;
  lastUpdatedAt?: string;
  lastUpdatedAtMs?: number;
  /** ms from createdAt; null = no expiry; undefined = not given or unusable. */
  ttl?: number | null;
  pollInterval?: number;
  shape: TaskShape;
}

export interface Normalised<T> {
  value: T;
  warnings: Warning[];
}

/** What tasks/result gave, in whichever shape: the payload (a CallToolResult for tools) or null. */
export interface TaskResultSnapshot {
  /** The underlying result, null when the receiver gave none (allowed for failed tasks in the user documents). */
  result: Record<string, unknown> | null;
  /** The envelope's status, when the receiver used the `{taskId, status, result}` shape. */
  envelopeStatus?: TaskStatus;
  isError: boolean;
  /** plain: a tasks/result answer; envelope: the user documents' `{taskId, status, result}`; inline: 2026-07-28, in tasks/get. */
  shape: 'plain' | 'envelope' | 'inline';
}

export interface ToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  /**
   * From `execution.taskSupport` (2025-11-25). `receiver`: 2026-07-28 has no such field; the receiver decides
   * per call whether to answer with a task.
   */
  taskSupport: 'forbidden' | 'optional' | 'required' | 'receiver';
  /** The tool says it changes nothing (`annotations.readOnlyHint`): a hint from the receiver, never a promise. */
  readOnly?: true;
}

/** The protocol generations Taskscope speaks. */
export type Era = '2025-11-25' | '2026-07-28';

export interface ServerTaskSupport {
  list: boolean;
  cancel: boolean;
  toolCall: boolean;
  /** Which generation the receiver speaks with us; absent means 2025-11-25. */
  era?: Era;
  /** On 2025-11-25: no tasks here, but the 2026-07-28 tasks extension is declared (a dual-era receiver). */
  onlyIn2026?: boolean;
}
