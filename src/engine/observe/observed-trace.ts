/**
 * One observed client session as a trace, like any other Taskscope trace: its tasks as the page shows them
 * (ObservedView), its traffic and its questions, the server as it described itself to that client, and the
 * tools it listed. It opens in the page, replays, and `taskscope serve` answers a client as that server did.
 */
import {
  isObject,
  normaliseTool,
  serverTaskSupport,
  serverTaskSupport2026,
  type Normalised,
  type TaskResultSnapshot,
  type ToolInfo,
  type TrafficEvent,
} from '../../mcp';
import type { ObservedClient } from '../../rules/client-sessions';
import { queryKeys } from '../../tracker/queries';
import type { InboxEvent } from '../messages';
import { buildTrace } from '../trace/build-trace';
import type { Trace } from '../trace/schema';
import { summarise } from './observed-sessions';
import { ObservedView } from './observed-view';

const CONNECTION = 1;

/** The tools the server listed to this client, the last list of each name kept. */
function toolsOf(client: ObservedClient): ToolInfo[] {
  const listed = new Set<string>();
  const tools = new Map<string, ToolInfo>();
  for (const seen of client.messages) {
    const m = seen.message;
    if (!isObject(m)) continue;
    const key = `${seen.exchange ?? ''}:${String(m.id)}`;
    if (seen.from === 'client' && m.method === 'tools/list') listed.add(key);
    else if (seen.from === 'server' && listed.has(key) && isObject(m.result) && Array.isArray(m.result.tools))
      for (const raw of m.result.tools) {
        const { tool } = normaliseTool(raw);
        if (tool && tools.size < 10_000) tools.set(tool.name, tool);
      }
  }
  return [...tools.values()];
}

export function observedTrace(client: ObservedClient, upstream: string, now = Date.now()): Trace {
  const traffic: TrafficEvent[] = [];
  const inbox: InboxEvent[] = [];
  const view = new ObservedView(client.key, CONNECTION, { last: 0 }, upstream, {
    traffic: (event) => traffic.push(event),
    inbox: (event) => inbox.push(event),
    changed: () => undefined,
  });
  try {
    view.readAll(client.messages);
    const summary = summarise(client);
    const era = summary.era ?? '2025-11-25';
    const capabilities = summary.server?.capabilities;
    const { tasks, order } = view.tasks.store.getState();
    return buildTrace(
      {
        receiver: {
          url: upstream,
          headers: {},
          era,
          ...(summary.server
            ? { server: summary.server, protocolVersion: summary.server.protocolVersion }
            : {}),
          support:
            era === '2026-07-28' ? serverTaskSupport2026(capabilities) : serverTaskSupport(capabilities),
          ...(client.sessionId !== undefined ? { sessionId: client.sessionId } : {}),
        },
        tools: toolsOf(client),
        tasks: order.map((id) => tasks.get(id)).filter((t) => t !== undefined),
        snapshot: (taskId) => view.tasks.snapshot(taskId),
        result: (taskId) =>
          view.queryClient.getQueryData<Normalised<TaskResultSnapshot>>(
            queryKeys.taskResult(CONNECTION, taskId),
          ),
        inbox,
        traffic,
      },
      { now },
    );
  } finally {
    view.dispose();
  }
}
