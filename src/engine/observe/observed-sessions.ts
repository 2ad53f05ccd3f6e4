/**
 * The client sessions of an observed source, as the page's picker lists them: who the client is, the protocol
 * generation it speaks, how many tasks it started, when it last did anything, and the server it talks to.
 * Pure and total: read from the messages of each session (rules/client-sessions.ts splits them), any message
 * however odd skipped or read as far as it goes.
 */
import { META_2026, isObject, type Era, type SeenMessage, type ServerDescription } from '../../mcp';
import { describeServer } from '../../mcp/session-base';
import { UNNAMED_CLIENT, type ObservedClient } from '../../rules/client-sessions';
import type { ObservedSessionInfo } from '../messages';

const META_PROTOCOL_VERSION = META_2026.protocolVersion;

/** What one client session shows in the picker, and what the page's header says of its server. */
export interface SessionSummary extends ObservedSessionInfo {
  /** The server as it described itself to this client (initialize's or server/discover's answer). */
  server?: ServerDescription;
  /** When the session's first message passed: the newest session is the one that started last. */
  firstAt: number;
}

export function labelOf(client: ObservedClient): string {
  if (client.name !== undefined) return client.version ? `${client.name} ${client.version}` : client.name;
  if (client.key === UNNAMED_CLIENT) return UNNAMED_CLIENT;
  return client.sessionId ? `session ${client.sessionId.slice(0, 12)}` : client.key.slice(0, 60);
}

export function summarise(client: ObservedClient): SessionSummary {
  const requests = new Map<string, string>();
  const tasks = new Set<string>();
  let era: Era | undefined;
  let server: ServerDescription | undefined;
  let firstAt = Infinity;
  let lastAt = 0;
  for (const seen of client.messages) {
    firstAt = Math.min(firstAt, seen.wallTime);
    lastAt = Math.max(lastAt, seen.wallTime);
    const m = seen.message;
    if (!isObject(m)) continue;
    const key = requestKey(seen, m.id);
    if (seen.from === 'client') {
      if (typeof m.method !== 'string') continue;
      if (key !== undefined) requests.set(key, m.method);
      if (m.method === 'initialize') era ??= '2025-11-25';
      const meta = isObject(m.params) && isObject(m.params._meta) ? m.params._meta : undefined;
      if (meta?.[META_PROTOCOL_VERSION] === '2026-07-28') era ??= '2026-07-28';
      continue;
    }
    const method = key !== undefined ? requests.get(key) : undefined;
    if (method === undefined || !isObject(m.result)) continue;
    const result = m.result;
    if (method === 'tools/call') {
      const task = isObject(result.task) ? result.task : result.resultType === 'task' ? result : undefined;
      if (task && typeof task.taskId === 'string' && tasks.size < 100_000) tasks.add(task.taskId);
    } else if ((method === 'initialize' || method === 'server/discover') && server === undefined)
      server = serverOf(result);
  }
  return {
    key: client.key,
    label: labelOf(client),
    ...(era !== undefined ? { era } : {}),
    tasks: tasks.size,
    lastAt,
    firstAt: Number.isFinite(firstAt) ? firstAt : 0,
    ...(server ? { server, serverName: server.title ?? server.name } : {}),
  };
}

function requestKey(seen: SeenMessage, id: unknown): string | undefined {
  return typeof id === 'string' || typeof id === 'number'
    ? `${seen.exchange ?? ''}:${typeof id}:${String(id)}`
    : undefined;
}

/** initialize's `serverInfo`; server/discover's own fields (2026-07-28). */
function serverOf(result: Record<string, unknown>): ServerDescription | undefined {
  const meta = isObject(result._meta) ? result._meta : {};
  const info = isObject(meta[META_2026.serverInfo])
    ? meta[META_2026.serverInfo]
    : isObject(result.serverInfo)
      ? result.serverInfo
      : undefined;
  if (!isObject(info)) return undefined;
  const version =
    typeof result.protocolVersion === 'string'
      ? result.protocolVersion
      : Array.isArray(result.supportedVersions) && typeof result.supportedVersions[0] === 'string'
        ? result.supportedVersions[0]
        : undefined;
  return describeServer(info, {
    protocolVersion: version?.slice(0, 40),
    instructions: result.instructions,
    capabilities: result.capabilities,
  });
}

/** The newest session: the one whose first message passed last. */
export function newest(summaries: readonly SessionSummary[]): SessionSummary | undefined {
  let best: SessionSummary | undefined;
  for (const s of summaries) if (!best || s.firstAt >= best.firstAt) best = s;
  return best;
}
