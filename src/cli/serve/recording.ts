/**
 * What `taskscope serve` plays back, read once from a trace: per recorded task the statuses it went through (at
 * their recorded offsets), the questions the receiver asked during input_required, and how it ended (the result
 * or, on 2026-07-28, the JSON-RPC error). The trace is untrusted input that `parseTrace` has already validated.
 */
import type { Trace, TraceTask } from '../../engine/trace/schema';

export type Status = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
export const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const PUSH_METHODS: ReadonlySet<string> = new Set([
  'notifications/tasks/status',
  'notifications/tasks',
  'notifications/tasks/updated',
]);

/** A request the receiver sent a person while the task waited for input (elicitation, sampling). */
export interface Question {
  /** The 2026-07-28 inputRequests key as recorded, or one made up for a 2025-11-25 recording. */
  key: string;
  method: string;
  /** As recorded, without the related-task `_meta` (the served task has a new id). */
  params: Record<string, unknown>;
  /** When the recording's person answered it, wall-clock ms (what the next step's delay counts from). */
  answeredAt?: number;
}

export interface Step {
  /** ms from the task's first observation. */
  offsetMs: number;
  /** Recorded wall-clock ms. */
  at: number;
  status: Status;
  statusMessage?: string;
  pollInterval?: number;
  /** Asked when the task enters this step; the task stays here until every one is answered. */
  questions: Question[];
}

export interface Ending {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export interface Plan {
  tool: string;
  recordedTaskId: string;
  steps: Step[];
  ttl: number | null;
  pollInterval: number;
  ending?: Ending;
}

export interface Recording {
  era: '2025-11-25' | '2026-07-28';
  plans: Map<string, Plan[]>;
  /** The recording holds status pushes, so serving sends them too. */
  pushes: boolean;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The observed statuses of a recorded task, as offsets from its first observation. */
export function stepsOf(task: TraceTask): Step[] {
  const observations = task.entries.flatMap((e) =>
    e.kind === 'observation' && e.status !== null ? [e] : [],
  );
  const first = observations[0]?.at ?? task.firstSeenAt;
  const steps: Step[] = [];
  for (const o of observations) {
    const last = steps.at(-1);
    const pollInterval = o.pollInterval ?? last?.pollInterval;
    if (
      last &&
      last.status === o.status &&
      last.statusMessage === o.statusMessage &&
      last.pollInterval === pollInterval
    )
      continue;
    steps.push({
      offsetMs: Math.max(0, o.at - first),
      at: o.at,
      status: o.status as Status,
      statusMessage: o.statusMessage,
      pollInterval,
      questions: [],
    });
    if (TERMINAL.has(o.status as string)) break;
  }
  if (steps.length === 0) steps.push({ offsetMs: 0, at: first, status: 'working', questions: [] });
  return steps;
}

/** The task's fields, wherever a message carries it: a tasks/get answer or a push's params. */
function taskPayload(message: unknown): Record<string, unknown> | undefined {
  if (!isRecord(message)) return undefined;
  if (isRecord(message.result) && typeof message.result.taskId === 'string') return message.result;
  if (
    typeof message.method === 'string' &&
    PUSH_METHODS.has(message.method) &&
    isRecord(message.params) &&
    typeof message.params.taskId === 'string'
  )
    return message.params;
  return undefined;
}

function withoutRelatedTask(params: Record<string, unknown>): Record<string, unknown> {
  if (!isRecord(params._meta) || !(RELATED_TASK in params._meta)) return params;
  const { [RELATED_TASK]: _dropped, ...meta } = params._meta;
  const { _meta: _old, ...rest } = params;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}

export function readRecording(trace: Trace): Recording {
  const era = trace.receiver.era === '2026-07-28' ? '2026-07-28' : '2025-11-25';
  const payloads = trace.traffic.flatMap((event) => {
    const payload = event.direction === 'in' ? taskPayload(event.message) : undefined;
    return payload ? [payload] : [];
  });
  const pushes =
    trace.traffic.some(
      (e) =>
        e.direction === 'in' &&
        isRecord(e.message) &&
        typeof e.message.method === 'string' &&
        PUSH_METHODS.has(e.message.method),
    ) ||
    trace.tasks.some((t) => t.entries.some((e) => e.kind === 'observation' && e.source === 'notification'));

  const answeredAt = new Map<string, number>();
  for (const event of trace.inbox)
    if (event.kind === 'settled' && event.at !== undefined) answeredAt.set(event.key, event.at);

  const plans = new Map<string, Plan[]>();
  for (const task of trace.tasks) {
    if (!task.tool) continue;
    const steps = stepsOf(task);
    let n = 0;
    for (const event of trace.inbox) {
      if (event.kind !== 'asked' || event.request.relatedTaskId !== task.taskId) continue;
      const waits = steps.filter((s) => s.status === 'input_required');
      // The question and the status that announces it arrive in either order: the nearest input_required.
      const step = waits.sort(
        (a, b) => Math.abs(a.at - event.request.receivedAt) - Math.abs(b.at - event.request.receivedAt),
      )[0];
      if (!step) continue;
      const requestId = String(event.request.requestId);
      const slash = requestId.indexOf('/');
      step.questions.push({
        key: era === '2026-07-28' && slash > 0 ? requestId.slice(slash + 1) : `question-${++n}`,
        method: event.request.method,
        params: withoutRelatedTask(isRecord(event.request.params) ? event.request.params : {}),
        answeredAt: answeredAt.get(event.request.key),
      });
    }
    const last = [...payloads]
      .reverse()
      .find((p) => p.taskId === task.taskId && typeof p.status === 'string' && TERMINAL.has(p.status));
    const ending: Ending | undefined =
      last && isRecord(last.error)
        ? { error: last.error as unknown as Ending['error'] }
        : last && isRecord(last.result)
          ? { result: last.result }
          : task.result?.value.result
            ? { result: task.result.value.result }
            : undefined;
    const snapshot = task.snapshot;
    const plan: Plan = {
      tool: task.tool,
      recordedTaskId: task.taskId,
      steps,
      ttl: typeof snapshot?.ttl === 'number' || snapshot?.ttl === null ? snapshot.ttl : 600_000,
      pollInterval: snapshot?.pollInterval ?? 1000,
      ending,
    };
    plans.set(task.tool, [...(plans.get(task.tool) ?? []), plan]);
  }
  return { era, plans, pushes };
}
