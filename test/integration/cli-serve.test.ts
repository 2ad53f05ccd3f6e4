import { spawn } from 'node:child_process';
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
import type { Trace } from '../../src/engine/trace/schema';
import { repoRoot } from '../helpers/stdio';
import { SOURCE_CLI, runCli, startServe, type RunningCli } from '../helpers/taskscope-cli';

/** `taskscope serve --demo` as a child process, and the official SDK client (1.x) against it. */
let served: RunningCli | undefined;
afterEach(async () => {
  await served?.stop();
  served = undefined;
});

async function serve(args: string[]): Promise<string> {
  served = await startServe(args);
  return served.url;
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

  it('refuses --step without a terminal to read Enter from (exit 2)', async () => {
    const run = await runCli(['serve', '--demo', '--step']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--step reads Enter from a terminal, and stdin is not one/);
  });

  it('--step on a terminal (a pseudo-terminal from script(1)): Enter moves the task to its next recorded status', async () => {
    const command = [...SOURCE_CLI, 'serve', '--demo', '--port', '0', '--step']
      .map((a) => `'${a}'`)
      .join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: repoRoot,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let output = '';
    const waiters: Array<[RegExp, () => void]> = [];
    const check = () => {
      for (const [pattern, resolve] of [...waiters])
        if (pattern.test(output)) {
          waiters.splice(
            waiters.findIndex((w) => w[1] === resolve),
            1,
          );
          resolve();
        }
    };
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      check();
    });
    const printed = (pattern: RegExp) =>
      new Promise<void>((resolve) => {
        waiters.push([pattern, resolve]);
        check();
      });
    try {
      await printed(/Ctrl-C stops it\./);
      const url = / on (http:\/\/127\.0\.0\.1:\d+\/mcp)\r?$/m.exec(output)![1]!;
      const client = new Client({ name: 'serve-step-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        const created = await client.request(
          { method: 'tools/call', params: { name: 'flaky_job', arguments: {}, task: {} } },
          CreateTaskResultSchema,
        );
        const { taskId } = created.task;
        const steps = stepsOf(demo.tasks.find((t) => t.tool === 'flaky_job')!);
        const get = () => client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema);
        expect((await get()).statusMessage).toBe(steps[0]!.statusMessage);
        child.stdin.write('\n');
        await printed(new RegExp(`flaky_job ${taskId.slice(0, 8)}: ${steps[1]!.status}`));
        const moved = await get();
        expect([moved.status, moved.statusMessage]).toEqual([steps[1]!.status, steps[1]!.statusMessage]);
      } finally {
        await client.close();
      }
      // End of input on the terminal stops it, as Ctrl-C does.
      child.stdin.write('\x04');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill();
    }
  });
});
