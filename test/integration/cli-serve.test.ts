import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { stepsOf } from '../../src/cli/serve/recorded-receiver';
import type { Trace } from '../../src/engine/trace/trace-types';
import { repoRoot } from '../helpers/stdio';
import { SOURCE_CLI } from '../helpers/taskscope-cli';

/** `taskscope serve --demo` as a child process, and the official SDK client (1.x) against it. */
let child: ChildProcess | undefined;
afterEach(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  }
  child = undefined;
});

function serve(args: string[]): Promise<string> {
  const [program, ...pre] = SOURCE_CLI;
  child = spawn(program!, [...pre, 'serve', ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = / on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child!.stdout!.on('data', onData);
    child!.stderr!.on('data', onData);
  });
}

const demo = JSON.parse(readFileSync(path.join(repoRoot, 'public/demo-trace.json'), 'utf8')) as Trace;

describe('taskscope serve --demo', () => {
  it('serves the recording to the SDK client: the recorded tool, its statuses in order, its result', async () => {
    const url = await serve(['--demo', '--port', '0', '--speed', '4']);
    const client = new Client({ name: 'serve-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('flaky_job');
      const created = await client.request(
        { method: 'tools/call', params: { name: 'flaky_job', arguments: {}, task: {} } },
        CreateTaskResultSchema,
      );
      const { taskId } = created.task;
      const seen: string[] = [created.task.status];
      let task = created.task;
      while (!['completed', 'failed', 'cancelled'].includes(task.status)) {
        // The receiver's own pollInterval: the client's poll discipline, not a wait in the test.
        await new Promise((r) => setTimeout(r, task.pollInterval ?? 100));
        task = await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema);
        if (seen.at(-1) !== task.status) seen.push(task.status);
      }
      const recorded = demo.tasks.find((t) => t.tool === 'flaky_job')!;
      const recordedStatuses = stepsOf(recorded).map((s) => s.status);
      expect(seen[0]).toBe('working');
      expect(seen.at(-1)).toBe(recordedStatuses.at(-1));
      expect(seen.every((s) => recordedStatuses.includes(s as never))).toBe(true);
      const result = await client.request(
        { method: 'tasks/result', params: { taskId } },
        CallToolResultSchema,
      );
      expect(result.content).toEqual(recorded.result?.value.result?.content);
      expect(result._meta?.['io.modelcontextprotocol/related-task']).toEqual({ taskId });
      await expect(
        client.request({ method: 'tasks/cancel', params: { taskId } }, GetTaskResultSchema),
      ).rejects.toThrow(/already ended/);
      await expect(
        client.request(
          { method: 'tools/call', params: { name: 'nope', arguments: {}, task: {} } },
          CreateTaskResultSchema,
        ),
      ).rejects.toThrow(/holds the tools .*flaky_job/);
    } finally {
      await client.close();
    }
  });

  it('refuses a foreign Host (DNS rebinding), as the demo receiver does', async () => {
    const url = new URL(await serve(['--demo', '--port', '0']));
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: url.port,
          path: '/mcp',
          method: 'POST',
          headers: { host: 'evil.example', 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    });
    expect(status).toBe(403);
  });
});
