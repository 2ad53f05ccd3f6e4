/** Clients that get tasks wrong on purpose, for the client rules' tests. */
type Json = Record<string, unknown>;

/** The JSON-RPC answer in a body, JSON or SSE (its last data payload). */
async function answerOf(response: Response): Promise<Json> {
  const text = await response.text();
  if (!response.headers.get('content-type')?.includes('text/event-stream')) return JSON.parse(text) as Json;
  const data = text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim());
  return JSON.parse(data.filter(Boolean).at(-1) ?? '{}') as Json;
}

/**
 * A client that gets tasks wrong on purpose, over raw JSON-RPC: it polls ten times faster than asked, polls on
 * after a terminal answer, asks again after -32602, and never fetches its result.
 */
export async function badClient2025(url: string, fetcher: typeof fetch = fetch) {
  let id = 0;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const send = async (method: string, params: Json = {}, notification = false) => {
    const response = await fetcher(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', ...(notification ? {} : { id: ++id }), method, params }),
    });
    const session = response.headers.get('mcp-session-id');
    if (session) headers['mcp-session-id'] = session;
    return notification ? ({} as Json) : answerOf(response);
  };
  await send('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'bad', version: '1' },
  });
  headers['mcp-protocol-version'] = '2025-11-25';
  await send('notifications/initialized', {}, true);
  const created = await send('tools/call', {
    name: 'slow_job',
    arguments: { durationMs: 200, steps: 1, pollIntervalMs: 500, ttlMs: 1000 },
    task: { ttl: 1000 },
  });
  const taskId = ((created.result as Json).task as Json).taskId as string;
  let terminalPolls = 0;
  let gone = false;
  // Ten times faster than the 500 ms asked, on after completed, until -32602 says the task is gone.
  const deadline = Date.now() + 10_000;
  while (!gone && Date.now() < deadline) {
    const answer = await send('tasks/get', { taskId });
    if ('error' in answer) gone = true;
    else if ((answer.result as Json).status === 'completed') terminalPolls++;
    // The client's own (wrong) cadence, not a wait of the test's.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // And once more after it.
  await send('tasks/get', { taskId });
  return { taskId, terminalPolls };
}
