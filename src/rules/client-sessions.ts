/**
 * One proxy sees many clients: their messages are told apart into client sessions, each judged on its own. On
 * 2025-11-25 a session is its Mcp-Session-Id; on 2026-07-28, which has no session, a client is known by the
 * clientInfo it names in each request's `_meta`, else all are one "unnamed client". An answer belongs to the
 * client whose request its HTTP exchange carried. Over stdio there is one client, named by its initialize.
 */
import { isObject } from '../mcp';
import type { SeenMessage } from './client-evidence';

const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const UNNAMED_CLIENT = 'unnamed client';

export interface ObservedClient {
  /** `session:<Mcp-Session-Id>`, `client:<name>@<version>`, or the unnamed client. */
  key: string;
  name?: string;
  version?: string;
  sessionId?: string;
  messages: SeenMessage[];
}

function clientInfoOf(message: unknown): { name: string; version?: string } | undefined {
  if (!isObject(message) || !isObject(message.params)) return undefined;
  const { params } = message;
  const info =
    message.method === 'initialize'
      ? params.clientInfo
      : isObject(params._meta)
        ? params._meta[META_CLIENT_INFO]
        : undefined;
  if (!isObject(info) || typeof info.name !== 'string') return undefined;
  return {
    name: info.name.slice(0, 200),
    ...(typeof info.version === 'string' ? { version: info.version.slice(0, 100) } : {}),
  };
}

/** Splits what passed into client sessions, each with its messages in the order they passed; oldest first. */
export function splitClientSessions(messages: readonly SeenMessage[], maxClients = 100): ObservedClient[] {
  const clients = new Map<string, ObservedClient>();
  const byExchange = new Map<number, { key: string; messages: SeenMessage[] }>();
  const clientFor = (key: string): ObservedClient => {
    let client = clients.get(key);
    if (client) return client;
    // Past the cap every further client is counted with the unnamed one: a flood cannot grow the list.
    if (clients.size >= maxClients && key !== UNNAMED_CLIENT) return clientFor(UNNAMED_CLIENT);
    client = { key, messages: [] };
    if (key.startsWith('session:')) client.sessionId = key.slice('session:'.length);
    clients.set(key, client);
    return client;
  };
  const name = (client: ObservedClient, seen: SeenMessage) => {
    const info = seen.from === 'client' ? clientInfoOf(seen.message) : undefined;
    if (!info || client.name !== undefined) return;
    client.name = info.name;
    if (info.version !== undefined) client.version = info.version;
  };
  // A 2025-11-25 client without sessions (stdio) names itself once, in initialize: what follows is its own.
  let initialized: string | undefined;
  for (const seen of messages) {
    const exchange = seen.exchange !== undefined ? byExchange.get(seen.exchange) : undefined;
    let key: string | undefined;
    if (seen.sessionId !== undefined) key = `session:${seen.sessionId}`;
    else if (seen.from === 'client') {
      const info = clientInfoOf(seen.message);
      if (info) key = `client:${info.name}@${info.version ?? ''}`;
      if (info && isObject(seen.message) && seen.message.method === 'initialize') initialized = key;
    }
    key ??= exchange?.key ?? initialized ?? UNNAMED_CLIENT;
    const client = clientFor(key);
    // The initialize answer names the session its request opened: that request moves into it.
    if (exchange && exchange.key !== client.key) {
      const from = clients.get(exchange.key);
      if (from) {
        from.messages = from.messages.filter((m) => !exchange.messages.includes(m));
        if (from.messages.length === 0) clients.delete(from.key);
      }
      client.messages.push(...exchange.messages);
      for (const moved of exchange.messages) name(client, moved);
      exchange.key = client.key;
    }
    name(client, seen);
    client.messages.push(seen);
    if (seen.exchange !== undefined) {
      if (exchange) exchange.messages.push(seen);
      else byExchange.set(seen.exchange, { key: client.key, messages: [seen] });
    }
  }
  return [...clients.values()];
}
