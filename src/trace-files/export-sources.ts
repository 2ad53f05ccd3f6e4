/**
 * What the page has observed, read from its stores for an export: the connection, the tool list in the query
 * cache, task records, snapshots and results, the inbox; the traffic log comes from the engine.
 */
import type { QueryClient } from '@tanstack/react-query';
import type { ToolInfo, TrafficEvent } from '../mcp';
import type { InboxEvent } from '../engine/messages';
import { useConnection } from '../state/connection-store';
import { useInbox, type InboxItem, type SentAnswer } from '../inbox/inbox-store';
import { tasksStore } from '../tasks/tasks-store';
import { queryKeys } from '../tracker/queries';
import type { TrackedTask } from '../tracker/task-store';
import type { TraceSources } from '../engine/trace/build-trace';

/** The reply the engine would have recorded for what the page noted as sent (the inbox reads it back the same way). */
function replyFor(sent: SentAnswer | undefined): Extract<InboxEvent, { kind: 'settled' }>['reply'] {
  if (!sent) return undefined;
  switch (sent.kind) {
    case 'elicitation':
      return {
        result: sent.content ? { action: sent.action, content: sent.content } : { action: sent.action },
      };
    case 'sampling':
      return {
        result: { role: 'assistant', model: sent.model, content: { type: 'text', text: sent.text } },
      };
    case 'sampling-declined':
      return { error: { code: -1, message: 'declined by the person' } };
  }
}

/** The inbox as the events that made it: each request asked, and settled when it was. */
export function inboxEvents(items: readonly InboxItem[]): InboxEvent[] {
  const events: InboxEvent[] = [];
  for (const item of items) {
    const { state, outcome, sent, ...request } = item;
    events.push({ kind: 'asked', request });
    if (state !== 'pending')
      events.push({
        kind: 'settled',
        key: item.key,
        state,
        outcome: outcome ?? state,
        at: sent?.at,
        reply: replyFor(sent),
      });
  }
  return events;
}

/** `traffic`: the connection's messages, which the engine's log holds (fetchTrafficEvents). */
export function pageTraceSources(queryClient: QueryClient, traffic: TrafficEvent[]): TraceSources {
  const connection = useConnection.getState();
  const id = connection.id;
  const { tasks, order, snapshots, results } = tasksStore.getState();
  const tools = queryClient.getQueryData<{ tools: ToolInfo[] }>(queryKeys.tools(id))?.tools ?? [];
  return {
    receiver: {
      url: connection.url,
      headers: connection.headers,
      era: connection.era,
      protocolVersion: connection.server?.protocolVersion,
      server: connection.server,
      support: connection.support,
      sessionId: connection.sessionId,
    },
    tools,
    tasks: order.map((taskId) => tasks.get(taskId)).filter((t): t is TrackedTask => t !== undefined),
    snapshot: (taskId) => snapshots.get(taskId),
    result: (taskId) => results.get(taskId),
    // This connection's requests only, as for traffic: the inbox keeps earlier connections' too.
    inbox: inboxEvents(useInbox.getState().items.filter((item) => item.connectionId === id)),
    traffic,
  };
}
