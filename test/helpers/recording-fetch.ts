import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { SeenMessage } from '../../src/rules/client-evidence';

/**
 * A fetch for a client's transport that notes every JSON-RPC message both ways as the client sends and gets it,
 * with its time and HTTP facts (the exchange that carried it, its Mcp-Session-Id): a client-side tap, for judging a real client without a proxy in between.
 * The client reads the same bytes it would read without it (the answer's body is teed).
 */
export function recordingFetch(base: typeof fetch = fetch) {
  const messages: SeenMessage[] = [];
  let exchanges = 0;
  const note = (from: SeenMessage['from'], text: string, facts: Partial<SeenMessage>) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    const at = performance.now();
    for (const message of Array.isArray(parsed) ? parsed : [parsed])
      messages.push({ at, wallTime: Date.now(), from, message, ...facts });
  };
  const recording: typeof fetch = async (input, init) => {
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    // As the proxy has them: one number per HTTP exchange, and the session id it carried.
    const exchange = ++exchanges;
    const requestSession = headers['mcp-session-id'];
    if (init?.method === 'POST' && typeof init.body === 'string')
      note('client', init.body, {
        headers,
        exchange,
        ...(requestSession ? { sessionId: requestSession } : {}),
      });
    const response = await base(input, init);
    if (!response.body) return response;
    const sessionId = requestSession ?? response.headers.get('mcp-session-id') ?? undefined;
    const facts = {
      httpStatus: response.status,
      responseHeaders: Object.fromEntries(response.headers.entries()),
      exchange,
      ...(sessionId ? { sessionId } : {}),
    };
    const [forClient, forUs] = response.body.tee();
    const type = response.headers.get('content-type') ?? '';
    void (async () => {
      if (type.includes('text/event-stream')) {
        const events = forUs.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
        for await (const event of events) if (event.data) note('server', event.data, facts);
      } else note('server', await new Response(forUs).text(), facts);
    })().catch(() => undefined);
    return new Response(forClient, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  return { fetch: recording, messages };
}
