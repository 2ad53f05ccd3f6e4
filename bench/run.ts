/**
 * npm run bench: the tracker against the demo receiver (in its own process, so the figures are the client's),
 * tracking N tasks at pollInterval 1,000 ms for 20 s each. Prints figures; asserts nothing.
 */
import { spawn } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpSession, TasksApi, type ToolInfo } from '../src/mcp';
import { createQueryClient } from '../src/tracker/queries';
import { TaskTracker } from '../src/tracker/tracker';
import type { ObservationEntry, TrackedTask } from '../src/tracker/task-store';

// Every request in flight adds a listener to the SDK transport's one abort signal; with a thousand tasks
// that passes Node's warning threshold, and the warnings themselves cost CPU. Not a leak: they go on answer.
const benchFetch: typeof fetch = (input, init) => {
  if (init?.signal) setMaxListeners(0, init.signal);
  return fetch(input, init);
};

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const POLL_INTERVAL_MS = 1000;
const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? 20_000);
const SIZES = (process.env.BENCH_SIZES ?? '100,1000').split(',').map(Number);

async function startReceiver(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'src/devserver/receiver-main.ts')],
    {
      cwd: root,
      env: { ...process.env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`receiver exited (${code})`)));
  });
  child.stdout.resume();
  return { url, stop: () => child.kill('SIGTERM') };
}

const quantile = (values: number[], q: number) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

async function runOnce(url: string, n: number): Promise<void> {
  const session = await McpSession.connect({ url, requestTimeoutMs: 120_000, fetch: benchFetch });
  const api = new TasksApi(session);
  const tool = (await api.listTools()).tools.find((t) => t.name === 'slow_job') as ToolInfo;
  const tracker = new TaskTracker({
    api,
    queryClient: createQueryClient({ sharing: false }),
    connectionId: 1,
  });

  // The window opens with the first create. Each task is asked to end at a fixed point in the second half of
  // the window, whenever it was created, so all are live together and results are measured under full load.
  const cpuStart = process.cpuUsage();
  const started = Date.now();
  const ids: string[] = [];
  for (let i = 0; i < n; i += 50) {
    const batch = Array.from({ length: Math.min(50, n - i) }, (_, j) => {
      const endAt = started + WINDOW_MS * (0.55 + 0.4 * ((i + j) / n));
      const durationMs = Math.max(500, Math.round(endAt - Date.now()));
      return api.createTask(
        tool,
        { durationMs, steps: 3, pollIntervalMs: POLL_INTERVAL_MS, label: `bench-${i + j}` },
        { ttl: 600_000 },
      );
    });
    for (const created of await Promise.all(batch)) {
      const taskId = created.value!.taskId;
      ids.push(taskId);
      tracker.track(taskId, { origin: 'created', tool: 'slow_job', initial: created });
    }
  }

  const createdIn = Date.now() - started;
  let peakRss = 0;
  let peakHeap = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 250);
  await new Promise((r) => setTimeout(r, Math.max(0, started + WINDOW_MS - Date.now())));
  const ended = Date.now();
  clearInterval(sampler);
  const cpu = process.cpuUsage(cpuStart);

  const tasks = ids.map((id) => tracker.store.getState().tasks.get(id)).filter((t): t is TrackedTask => !!t);
  let polls = 0;
  let liveSeconds = 0;
  const ratios: number[] = [];
  const resultLatency: number[] = [];
  const resultSendDelay: number[] = [];
  let pollsAfterTerminal = 0;
  let completed = 0;
  for (const task of tasks) {
    const pollEntries = task.entries.filter(
      (e): e is ObservationEntry =>
        e.kind === 'observation' && e.source === 'poll' && e.sentAt !== undefined && e.sentAt >= started,
    );
    polls += pollEntries.length;
    pollsAfterTerminal += task.pollsAfterTerminal;
    const terminalEntry = task.entries.find(
      (e) => e.kind === 'observation' && (e.status === 'completed' || e.status === 'failed'),
    );
    const liveUntil = terminalEntry && terminalEntry.at < ended ? terminalEntry.at : ended;
    liveSeconds += Math.max(0, liveUntil - Math.max(started, task.firstSeenAt)) / 1000;
    for (let i = 1; i < pollEntries.length; i++) {
      ratios.push(
        (pollEntries[i]!.sentAt! - pollEntries[i - 1]!.sentAt!) /
          (pollEntries[i - 1]!.pollInterval ?? POLL_INTERVAL_MS),
      );
    }
    const result = task.entries.find((e) => e.kind === 'result' && e.outcome === 'fetched');
    if (terminalEntry && result?.kind === 'result') {
      completed++;
      resultLatency.push(result.at - terminalEntry.at);
      resultSendDelay.push(result.sentAt - terminalEntry.at);
    }
  }

  const rate = polls / Math.max(1e-9, liveSeconds);
  console.log(`\n== ${n} tasks, pollInterval ${POLL_INTERVAL_MS} ms, ${WINDOW_MS / 1000} s window ==`);
  console.log(`created ${n} tasks in ${fmt(createdIn / 1000, 1)} s (inside the window)`);
  console.log(
    `requests per live task per second: ${fmt(rate, 3)} (ideal ${fmt(1000 / POLL_INTERVAL_MS, 3)}; ${polls} tasks/get over ${fmt(liveSeconds, 0)} task-seconds)`,
  );
  console.log(
    `gap / pollInterval: min ${fmt(quantile(ratios, 0))}, median ${fmt(quantile(ratios, 0.5))}, p95 ${fmt(quantile(ratios, 0.95))}`,
  );
  console.log(`tasks completed in the window: ${completed}/${n}`);
  console.log(
    `result latency after the completing observation: median ${fmt(quantile(resultLatency, 0.5), 1)} ms, p95 ${fmt(quantile(resultLatency, 0.95), 1)} ms (sent after: median ${fmt(quantile(resultSendDelay, 0.5), 1)} ms)`,
  );
  console.log(`polls after terminal: ${pollsAfterTerminal}`);
  console.log(
    `CPU (tracker process): ${fmt((cpu.user + cpu.system) / 1e6)} s over ${fmt((ended - started) / 1000, 1)} s wall`,
  );
  console.log(
    `peak memory (tracker process): RSS ${fmt(peakRss / 2 ** 20, 1)} MiB, heap ${fmt(peakHeap / 2 ** 20, 1)} MiB`,
  );

  tracker.dispose();
  await session.close();
}

const receiver = await startReceiver();
try {
  for (const n of SIZES) await runOnce(receiver.url, n);
} finally {
  receiver.stop();
}
