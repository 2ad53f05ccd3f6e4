import {
  AnsweredAtOnce,
  classifyError,
  isObject,
  limitJson,
  normaliseTask,
  type ClassifiedError,
} from '../mcp';
import type { Connection } from './connection/connection';
import type { Command, Replies } from './messages';
import type { TaskCall } from '../tracker/task-store';

/**
 * The calls a person sends to the receiver by hand: a tool run as a task, a plain call, a message resent from
 * the traffic log. They share one rule: a task the receiver starts because of them belongs in the task list,
 * followed, with the call kept so Run again can repeat it. host.ts only routes the commands here.
 */

type CommandOf<T extends Command['type']> = Extract<Command, { type: T }>;

/**
 * The call kept with a task created here (and in history), for Run again: capped, as arguments are the
 * person's, but a form can be large.
 */
export function keptCall(tool: string, args: Record<string, unknown>, ttl?: number): TaskCall {
  return {
    tool,
    args: limitJson(args, { maxDepth: 16, maxNodes: 2000 }).value as Record<string, unknown>,
    ttl,
  };
}

export async function runTool(conn: Connection | null, command: CommandOf<'run'>): Promise<Replies['run']> {
  const { tool, args, ttl } = command;
  if (!conn) return notConnected();
  const sentAt = Date.now();
  try {
    const created = await conn.api.createTask(tool, args, { ttl });
    if (!created.value) {
      return {
        ok: false,
        error: {
          kind: 'protocol',
          message: `The receiver did not answer with a task: ${created.warnings.map((w) => w.message).join('; ')}`,
        },
      };
    }
    conn.tracker.track(created.value.taskId, {
      origin: 'created',
      tool: tool.name,
      call: keptCall(tool.name, args, ttl),
      initial: created,
      source: 'create',
      sentAt,
    });
    return { ok: true, taskId: created.value.taskId };
  } catch (error) {
    if (error instanceof AnsweredAtOnce) return { ok: true, answer: error.answer };
    return {
      ok: false,
      error: classifyError(error, { method: 'tools/call', signIn: conn.auth?.needsSignIn }),
    };
  }
}

export async function callPlain(
  conn: Connection | null,
  command: CommandOf<'callPlain'>,
): Promise<Replies['callPlain']> {
  if (!conn) return notConnected();
  try {
    const answer = await conn.tracker.duringPlainCall(() => conn.api.callTool(command.tool, command.args));
    return { ok: true, answer };
  } catch (error) {
    return {
      ok: false,
      error: classifyError(error, { method: 'tools/call', signIn: conn.auth?.needsSignIn }),
    };
  }
}

/** `isCurrent`: whether the connection is still the engine's, asked once the answer is in. */
export async function resend(
  conn: Connection | null,
  command: CommandOf<'resend'>,
  isCurrent: (conn: Connection) => boolean,
): Promise<Replies['resend']> {
  const session = conn?.holder.session;
  if (!session) return notConnected();
  try {
    // Through the current session: its id, headers and tap, so the answer shows in the traffic as well.
    const result = await session.request(command.method, command.params);
    // The connection may have been closed or replaced while the call was out: its tracker is gone.
    if (command.method === 'tools/call' && conn && !conn.closed && isCurrent(conn))
      trackResent(conn, command.params, result);
    return { ok: true, result };
  } catch (error) {
    return {
      ok: false,
      error: classifyError(error, { method: command.method, signIn: conn?.auth?.needsSignIn }),
    };
  }
}

/** A resent task-augmented call started a task like any other: it belongs in the task list, followed. */
function trackResent(conn: Connection, params: unknown, result: unknown) {
  if (!isObject(result) || !(isObject(result.task) || result.resultType === 'task')) return;
  const created = normaliseTask(result, { era: conn.knownEra });
  if (!created.value) return;
  const tool = isObject(params) && typeof params.name === 'string' ? params.name : undefined;
  // The call as sent, so Run again repeats it like any task run from the tools list.
  const args = isObject(params) && isObject(params.arguments) ? params.arguments : {};
  const task = isObject(params) && isObject(params.task) ? params.task : undefined;
  const ttl = typeof task?.ttl === 'number' ? task.ttl : undefined;
  conn.tracker.track(created.value.taskId, {
    origin: 'created',
    ...(tool ? { tool, call: { tool, args, ...(ttl !== undefined ? { ttl } : {}) } } : {}),
    initial: created,
    source: 'create',
  });
}

const notConnected = (): { ok: false; error: ClassifiedError } => ({
  ok: false,
  error: { kind: 'other', message: 'Not connected to a receiver.' },
});
