import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpSession, Session2026, TrafficTap, type TrafficEvent } from '../../src/mcp';
import { curlCommand } from '../../src/traffic/curl';
import { startDemoReceiver, type RunningReceiver } from '../helpers/receivers';
import { startDemoReceiver2026 } from '../helpers/receiver-2026';

const run = promisify(execFile);
const CURL = '/usr/bin/curl';
const personHeaders = { Authorization: 'Bearer curl-test-secret', 'X-Team': 'blue' };

let receiver: RunningReceiver;
let session: McpSession;
const events: TrafficEvent[] = [];
const dir = mkdtempSync(path.join(tmpdir(), 'taskscope-curl-it-'));

beforeAll(async () => {
  receiver = await startDemoReceiver();
  const tap = new TrafficTap();
  tap.subscribe((event) => events.push(event));
  session = await McpSession.connect({ url: receiver.url, tap, headers: personHeaders });
});
afterAll(async () => {
  await session?.close();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The recorded request and its answer, found by the answer's id. */
function recorded(id: string | number) {
  const answer = events.find((e) => e.direction === 'in' && e.id === id && e.kind !== 'request');
  const request = events.find((e) => e.seq === answer?.requestSeq);
  if (!answer || !request) throw new Error(`no recorded exchange for id ${id}`);
  return { request, answer };
}

/** Runs the command as a person would paste it, through a shell, with the real curl; the JSON-RPC answer back. */
async function runCurl(command: string): Promise<{ id?: unknown; result?: unknown; error?: unknown }> {
  const { stdout } = await run('sh', ['-c', command.replace(/^curl /, `${CURL} `)], { timeout: 20_000 });
  const trimmed = stdout.trim();
  if (trimmed.startsWith('{')) return JSON.parse(trimmed) as { id?: unknown };
  // An event stream: the answer is the data of its message event.
  const data = trimmed
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .filter((line) => line !== '');
  return JSON.parse(data.at(-1)!) as { id?: unknown };
}

const lastId = (method: string) =>
  events.filter((e) => e.method === method && e.kind === 'request').at(-1)!.id!;

describe('copy as curl, run with curl against the demo receiver', () => {
  it('a recorded tools/list, replayed by curl in the same session, gets the same answer', async () => {
    await session.request('tools/list');
    const { request, answer } = recorded(lastId('tools/list'));
    expect(answer.http).toBeDefined();
    const http = answer.http!;
    expect(http.url).toBe(receiver.url);
    expect(http.status).toBe(200);
    expect(http.requestHeaders['mcp-session-id']).toBe(session.sessionId);
    expect(http.requestHeaders['mcp-protocol-version']).toBe('2025-11-25');
    // Redacted at the source: the tap never held the secret.
    expect(http.requestHeaders.authorization).toBe('[redacted]');
    expect(JSON.stringify(events)).not.toContain('curl-test-secret');

    const redacted = curlCommand({
      url: http.url,
      connectionUrl: http.url,
      sameConnection: true,
      message: request.message,
      sentHeaders: http.requestHeaders,
      personHeaders,
      includeSecrets: false,
    });
    expect(redacted).not.toContain('curl-test-secret');
    const command = curlCommand({
      url: http.url,
      connectionUrl: http.url,
      sameConnection: true,
      message: request.message,
      sentHeaders: http.requestHeaders,
      personHeaders,
      includeSecrets: true,
    });
    expect(command).toContain(`-H 'authorization: Bearer curl-test-secret'`);
    const replayed = await runCurl(command);
    expect(replayed.id).toBe(request.id);
    expect(replayed.id).toBe((answer.message as { id: unknown }).id);
    expect(replayed.result).toEqual((answer.message as { result: unknown }).result);
  });

  it('a recorded tasks/get, replayed by curl, names the same task in the same state', async () => {
    const created = (await session.request('tools/call', {
      name: 'slow_job',
      arguments: { durationMs: 60_000 },
      task: { ttl: 120_000 },
    })) as { task: { taskId: string } };
    const taskId = created.task.taskId;
    await session.request('tasks/get', { taskId });
    const { request, answer } = recorded(lastId('tasks/get'));
    const command = curlCommand({
      url: answer.http!.url,
      connectionUrl: answer.http!.url,
      sameConnection: true,
      message: request.message,
      sentHeaders: answer.http!.requestHeaders,
      personHeaders,
      includeSecrets: true,
    });
    const replayed = (await runCurl(command)) as { id: unknown; result: Record<string, unknown> };
    const original = (answer.message as { result: Record<string, unknown> }).result;
    expect(replayed.id).toBe(request.id);
    expect(replayed.result.taskId).toBe(taskId);
    expect(replayed.result.status).toBe(original.status);
    expect(replayed.result.createdAt).toBe(original.createdAt);
    await session.request('tasks/cancel', { taskId });
  });

  it('a body with quotes, $(…), backticks and newlines reaches the receiver as data and runs nothing', async () => {
    const marker = path.join(dir, 'pwned-xyz');
    const message = `it's "quoted" $(touch ${marker}) \`touch ${marker}\` $HOME '\\'' done\nline two`;
    await session.request('tools/call', { name: 'echo', arguments: { message } });
    const { request, answer } = recorded(lastId('tools/call'));
    const command = curlCommand({
      url: answer.http!.url,
      connectionUrl: answer.http!.url,
      sameConnection: true,
      message: request.message,
      sentHeaders: answer.http!.requestHeaders,
      personHeaders,
      includeSecrets: false,
    });
    const replayed = (await runCurl(command)) as { result: { content: Array<{ text: string }> } };
    expect(replayed.result.content[0]!.text).toBe(message);
    expect(replayed.result).toEqual((answer.message as { result: unknown }).result);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('copy as curl on a 2026-07-28 receiver', () => {
  it('carries the routing headers as sent (Mcp-Method, Mcp-Name), and curl gets the same answer', async () => {
    const receiver2026 = await startDemoReceiver2026();
    const seen: TrafficEvent[] = [];
    const tap = new TrafficTap();
    tap.subscribe((event) => seen.push(event));
    const session2026 = await Session2026.connect({ url: receiver2026.url, tap });
    try {
      await session2026.request('tools/call', { name: 'echo', arguments: { message: "it's $(id)" } });
      const answer = seen.find((e) => e.direction === 'in' && e.method === 'tools/call' && e.http)!;
      const request = seen.find((e) => e.seq === answer.requestSeq)!;
      const headers = answer.http!.requestHeaders;
      expect(headers['mcp-method']).toBe('tools/call');
      expect(headers['mcp-name']).toBe('echo');
      expect(headers['mcp-protocol-version']).toBe('2026-07-28');
      const command = curlCommand({
        url: answer.http!.url,
        connectionUrl: answer.http!.url,
        sameConnection: true,
        message: request.message,
        sentHeaders: headers,
        personHeaders: {},
        includeSecrets: false,
      });
      expect(command).toContain(`-H 'mcp-name: echo'`);
      const replayed = await runCurl(command);
      expect(replayed.id).toBe(request.id);
      expect(replayed.result).toEqual((answer.message as { result: unknown }).result);
    } finally {
      await session2026.close();
      await receiver2026.close();
    }
  });
});
