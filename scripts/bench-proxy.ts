/**
 * `npm run bench:proxy`: what `taskscope proxy` costs. A trivial node:http upstream (a small JSON answer, an
 * event stream of N events, pushes on a quiet stream), the real command in front of it, and one keep-alive
 * client that measures the same work direct and through the proxy in one run, each end in its own process.
 * Prints figures; no gates (the goals: p50 added ≤ 2 ms, p99 ≤ 10 ms, ≥ 90 % of direct throughput).
 * `PROF=DIR npm run bench:proxy` writes the proxy process's CPU profile into DIR.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const now = () => performance.timeOrigin + performance.now();

/** The upstream, in a process of its own: every event carries the time it was written. */
const UPSTREAM = `
const http = require('node:http');
const now = () => performance.timeOrigin + performance.now();
const json = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}';
http.createServer((req, res) => {
  const url = new URL(req.url, 'http://upstream');
  req.resume();
  req.on('end', () => {
    if (url.searchParams.get('kind') === 'json') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
      res.end(json);
      return;
    }
    const n = Number(url.searchParams.get('n'));
    const gap = Number(url.searchParams.get('gap') || 0);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    let i = 0;
    const send = () => {
      if (res.destroyed) return;
      res.write('id: ' + i + '\\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"i":' + i + ',"t":' + now() + '}}\\n\\n');
      if (++i >= n) res.end();
      else if (gap > 0) setTimeout(send, gap);
      else setImmediate(send);
    };
    send();
  });
}).listen(0, '127.0.0.1', function () { console.log('PORT=' + this.address().port); });
`;

function started(child: ChildProcess, pattern: RegExp, what: string): Promise<string> {
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}:\n${output}`)));
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function post(url: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    });
    req.on('response', resolve);
    req.on('error', reject);
    req.end('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bench"}}');
  });
}

async function jsonOnce(url: string): Promise<number> {
  const start = now();
  const res = await post(`${url}?kind=json`);
  for await (const chunk of res) void chunk;
  return now() - start;
}

/** Per event: the client's receive time minus the upstream's write time. */
async function eventDelays(url: string, n: number, gap: number): Promise<{ delays: number[]; ms: number }> {
  const start = now();
  const res = await post(`${url}?kind=sse&n=${n}&gap=${gap}`);
  const delays: number[] = [];
  let rest = '';
  for await (const chunk of res) {
    const at = now();
    rest += (chunk as Buffer).toString();
    let end: number;
    while ((end = rest.indexOf('\n\n')) >= 0) {
      const t = /"t":([\d.]+)/.exec(rest.slice(0, end));
      if (t?.[1]) delays.push(at - Number(t[1]));
      rest = rest.slice(end + 2);
    }
  }
  return { delays, ms: now() - start };
}

async function throughput(url: string, concurrency: number, ms: number): Promise<number> {
  const deadline = now() + ms;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (now() < deadline) {
        await jsonOnce(url);
        done++;
      }
    }),
  );
  return done / (ms / 1000);
}

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const f = (ms: number) => `${ms.toFixed(2)} ms`;

async function main() {
  const dist = await mkdtemp(path.join(tmpdir(), 'taskscope-bench-dist-'));
  await writeFile(path.join(dist, 'index.html'), '<!doctype html><title>bench</title>\n');
  const upstream = spawn(process.execPath, ['-e', UPSTREAM], { stdio: ['ignore', 'pipe', 'pipe'] });
  const children: ChildProcess[] = [upstream];
  try {
    const port = await started(upstream, /PORT=(\d+)/, 'the upstream');
    const direct = `http://127.0.0.1:${port}/mcp`;
    const proxy = spawn(
      process.execPath,
      [
        ...(process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROF] : []),
        '--import',
        'tsx',
        'src/cli/main.ts',
        'proxy',
        direct,
        '--name',
        'bench',
        '--port',
        '0',
        '--no-open',
      ],
      { cwd: repoRoot, env: { ...process.env, TASKSCOPE_DIST: dist }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(proxy);
    const proxied = await started(proxy, /^client endpoint: (\S+)$/m, 'taskscope proxy');
    const ends = { direct, proxied } as const;

    // Warm both paths (JIT, keep-alive sockets) before anything is measured.
    for (const url of Object.values(ends)) for (let i = 0; i < 300; i++) await jsonOnce(url);
    for (const url of Object.values(ends)) await eventDelays(url, 200, 0);

    console.log(
      `taskscope proxy bench (Node ${process.version}; upstream, proxy and client in 3 processes)\n`,
    );

    const latency: Record<string, number[]> = { direct: [], proxied: [] };
    // Interleaved, so a slow moment of the machine hits both alike.
    for (let i = 0; i < 1500; i++)
      for (const [name, url] of Object.entries(ends)) latency[name]?.push(await jsonOnce(url));
    const l = (name: string) => latency[name] ?? [];
    console.log('small JSON answer, one request at a time (1500 each)');
    console.log(`  direct   p50 ${f(pct(l('direct'), 50))}  p99 ${f(pct(l('direct'), 99))}`);
    console.log(`  proxied  p50 ${f(pct(l('proxied'), 50))}  p99 ${f(pct(l('proxied'), 99))}`);
    console.log(
      `  added    p50 ${f(pct(l('proxied'), 50) - pct(l('direct'), 50))}  p99 ${f(pct(l('proxied'), 99) - pct(l('direct'), 99))}`,
    );

    const rate = { direct: await throughput(direct, 8, 3000), proxied: await throughput(proxied, 8, 3000) };
    console.log('\nsmall JSON answer, 8 at a time for 3 s');
    console.log(`  direct   ${rate.direct.toFixed(0)} requests/s`);
    console.log(
      `  proxied  ${rate.proxied.toFixed(0)} requests/s (${((100 * rate.proxied) / rate.direct).toFixed(0)} % of direct)`,
    );

    console.log('\nevent stream, 2000 events written back to back: upstream write → client read');
    for (const [name, url] of Object.entries(ends)) {
      const { delays, ms } = await eventDelays(url, 2000, 0);
      console.log(
        `  ${name.padEnd(8)} p50 ${f(pct(delays, 50))}  p99 ${f(pct(delays, 99))}  ${((delays.length / ms) * 1000).toFixed(0)} events/s`,
      );
    }

    console.log('\npushes on a quiet stream, 200 one every 5 ms: upstream push → client receive');
    const push: Record<string, number[]> = {};
    for (const [name, url] of Object.entries(ends)) push[name] = (await eventDelays(url, 200, 5)).delays;
    const p = (name: string) => push[name] ?? [];
    console.log(`  direct   p50 ${f(pct(p('direct'), 50))}  p99 ${f(pct(p('direct'), 99))}`);
    console.log(`  proxied  p50 ${f(pct(p('proxied'), 50))}  p99 ${f(pct(p('proxied'), 99))}`);
    console.log(
      `  added    p50 ${f(pct(p('proxied'), 50) - pct(p('direct'), 50))}  p99 ${f(pct(p('proxied'), 99) - pct(p('direct'), 99))}`,
    );
    console.log('\nGoals, not gates: p50 added ≤ 2 ms, p99 added ≤ 10 ms, ≥ 90 % of direct throughput.');
  } finally {
    agent.destroy();
    for (const child of children) child.kill('SIGINT');
    await Promise.all(
      children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)),
    );
    await rm(dist, { recursive: true, force: true });
  }
}

await main();
