import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolInfo } from '../../src/mcp';
import { HISTORY_DB_NAME, HistoryDb, historyKey } from '../../src/engine/history';
import { startDemoReceiver } from '../helpers/receivers';
import { waitFor } from '../helpers/wait';
import { engineOverChannel } from '../helpers/engine-channel';

const settings = { paused: false, minPollIntervalMs: 0 };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('history that survives reconnects and reloads (IndexedDB through idb; fake-indexeddb in Node)', () => {
  it('Disconnect keeps every task, observation and result on the page; a new engine on the same database (a reload) restores them, marked with their ended session', async () => {
    const receiver = await startDemoReceiver();
    cleanups.push(() => receiver.close());
    const indexedDB = new IDBFactory();
    const history = () => HistoryDb.open({ indexedDB });

    const first = engineOverChannel({ history });
    const connected = await first.bridge.request({
      type: 'connect',
      connectionId: 1,
      url: receiver.url,
      headers: { Authorization: 'Bearer do-not-store' },
      settings,
    });
    if (!connected.ok) throw new Error('connect failed');
    const taskId = await runToResult(first, {
      durationMs: 400,
      steps: 2,
      pollIntervalMs: 100,
      label: 'kept',
    });
    const seen = first.tasks.getState().tasks.get(taskId)!;
    await first.bridge.request({ type: 'disconnect' });
    // The page keeps the records; they now say their session ended.
    const afterDisconnect = first.tasks.getState().tasks.get(taskId)!;
    expect(afterDisconnect.sessionEndedAt).toBeGreaterThan(0);
    expect(afterDisconnect.lifecycle).toBe('terminal');

    const second = engineOverChannel({ history });
    cleanups.push(() => second.close());
    const again = await second.bridge.request({
      type: 'connect',
      connectionId: 1,
      url: receiver.url,
      headers: {},
      settings,
    });
    expect(again.ok).toBe(true);
    const restored = second.tasks.getState().tasks.get(taskId);
    expect(restored?.status).toBe('completed');
    expect(restored?.pollCount).toBe(seen.pollCount);
    expect(restored?.entries.length).toBeGreaterThanOrEqual(seen.entries.length);
    expect(restored?.sessionEndedAt).toBeGreaterThan(0);
    expect(restored?.result.state).toBe('fetched');
    const result = second.batches.flatMap((b) => b.results).find(([id]) => id === taskId)?.[1];
    expect(JSON.stringify(result?.value)).toContain('Finished kept');
    // The traffic came back too, numbered on from where it was.
    const traffic = second.batches.flatMap((b) => b.traffic);
    expect(traffic.some((e) => e.method === 'tasks/get')).toBe(true);
    expect(new Set(traffic.map((e) => e.seq)).size).toBe(traffic.length);
    // Nothing of the Authorization header sent on every request is anywhere in what was stored.
    const stored = await history();
    expect(JSON.stringify(await stored!.load(receiver.url))).not.toContain('do-not-store');
    stored!.close();
    expect(second.batches.some((b) => b.connection?.history?.restored === 1)).toBe(true);

    // Clear: the ended task goes, from the page and from storage.
    const forgotten = await second.bridge.request({ type: 'clearHistory' });
    expect(forgotten).toContain(taskId);
    await waitFor(() => !second.tasks.getState().tasks.has(taskId), 2000);
    const db = await history();
    expect((await db!.load(receiver.url)).tasks).toHaveLength(0);
    db!.close();
  }, 30_000);

  it('restored inbox requests belong to the connection that restored them, as restored traffic does', async () => {
    const receiver = await startDemoReceiver();
    cleanups.push(() => receiver.close());
    const indexedDB = new IDBFactory();
    const db = await HistoryDb.open({ indexedDB });
    const request = {
      key: 'k1',
      connectionId: 1,
      requestId: 3,
      method: 'elicitation/create',
      params: { message: 'Proceed?' },
      receivedAt: Date.now() - 60_000,
    };
    await db!.write(receiver.url, {
      tasks: [],
      snapshots: [],
      results: [],
      traffic: [],
      inbox: [
        { kind: 'asked', request },
        { kind: 'settled', key: 'k1', state: 'answered', outcome: 'declined', at: Date.now() - 50_000 },
      ],
    });
    db!.close();
    const e = engineOverChannel({ history: () => HistoryDb.open({ indexedDB }) });
    cleanups.push(() => e.close());
    await e.bridge.request({ type: 'connect', connectionId: 7, url: receiver.url, headers: {}, settings });
    await waitFor(() => e.batches.some((b) => b.inbox.length > 0), 5000);
    const asked = e.batches.flatMap((b) => b.inbox).filter((event) => event.kind === 'asked');
    expect(asked.map((event) => event.kind === 'asked' && event.request.connectionId)).toEqual([7]);
  }, 20_000);

  it('Reconnect: the live tasks of the session left behind come back from history and are asked about once in the new one', async () => {
    const receiver = await startDemoReceiver();
    cleanups.push(() => receiver.close());
    const indexedDB = new IDBFactory();
    const e = engineOverChannel({ history: () => HistoryDb.open({ indexedDB }) });
    cleanups.push(() => e.close());
    const connect = () =>
      e.bridge.request({ type: 'connect', connectionId: 1, url: receiver.url, headers: {}, settings });
    const first = await connect();
    if (!first.ok) throw new Error('connect failed');
    const { tools } = await e.bridge.request({ type: 'listTools' });
    const run = await e.bridge.request({
      type: 'run',
      tool: tools.find((t) => t.name === 'slow_job') as ToolInfo,
      args: { durationMs: 30_000, steps: 2, pollIntervalMs: 100 },
    });
    if (!run.ok || run.taskId === undefined) throw new Error(run.ok ? 'answered at once' : run.error.message);
    await waitFor(() => (e.tasks.getState().tasks.get(run.taskId)?.pollCount ?? 0) >= 2, 5000);
    const second = await connect();
    expect(second.ok && second.sessionId).not.toBe(first.sessionId);
    // The demo receiver keeps tasks per session: asked once in the new one, it says so, and that is all.
    await waitFor(() => e.tasks.getState().tasks.get(run.taskId)?.lifecycle === 'session-ended', 5000);
    const task = e.tasks.getState().tasks.get(run.taskId)!;
    expect(task.entries.some((entry) => entry.kind === 'purged')).toBe(false);
    expect(task.entries.filter((entry) => entry.kind === 'observation').length).toBeGreaterThanOrEqual(2);
  }, 20_000);

  it('with Preserve log off nothing is written or restored', async () => {
    const receiver = await startDemoReceiver();
    cleanups.push(() => receiver.close());
    const indexedDB = new IDBFactory();
    const history = () => HistoryDb.open({ indexedDB });
    const first = engineOverChannel({ history });
    cleanups.push(() => first.close());
    await first.bridge.request({
      type: 'connect',
      connectionId: 1,
      url: receiver.url,
      headers: {},
      settings,
      preserve: false,
    });
    await runToResult(first, { durationMs: 200, steps: 1, pollIntervalMs: 100 });
    await first.bridge.request({ type: 'flush' });
    const db = await history();
    expect((await db!.load(receiver.url)).tasks).toHaveLength(0);
    db!.close();
  }, 20_000);

  it('a secret in the receiver URL is written nowhere: its history is kept under the blanked URL and a hash, and what an older version kept under the raw URL goes', async () => {
    const receiver = await startDemoReceiver();
    cleanups.push(() => receiver.close());
    const indexedDB = new IDBFactory();
    const history = () => HistoryDb.open({ indexedDB });
    const withSecret = (secret: string) => `${receiver.url}?api_key=${secret}&view=tasks`;
    const url = withSecret('do-not-store');

    // What an earlier Taskscope kept under the URL as typed.
    const earlier = (await history())!;
    await earlier.write(url, {
      tasks: [],
      snapshots: [],
      results: [],
      traffic: [],
      inbox: [],
      meta: { old: 1 },
    });
    earlier.close();
    expect(await dumpDatabase(indexedDB, HISTORY_DB_NAME)).toContain('do-not-store');

    const first = engineOverChannel({ history });
    cleanups.push(() => first.close());
    const connected = await first.bridge.request({
      type: 'connect',
      connectionId: 1,
      url,
      headers: {},
      settings,
    });
    if (!connected.ok) throw new Error('connect failed');
    const taskId = await runToResult(first, { durationMs: 200, steps: 1, pollIntervalMs: 100 });
    await first.bridge.request({ type: 'flush' });
    await first.bridge.request({ type: 'disconnect' });

    // Every store, keys and values: the secret is nowhere; what is kept is kept under the blanked URL.
    const raw = await dumpDatabase(indexedDB, HISTORY_DB_NAME);
    expect(raw).not.toContain('do-not-store');
    expect(raw).toContain(JSON.stringify(historyKey(url)));
    expect(historyKey(url)).toMatch(/api_key=%5Bredacted%5D&view=tasks [0-9a-f]{8}$/);

    // The same URL finds it again.
    const second = engineOverChannel({ history });
    cleanups.push(() => second.close());
    const again = await second.bridge.request({
      type: 'connect',
      connectionId: 1,
      url,
      headers: {},
      settings,
    });
    expect(again.ok).toBe(true);
    expect(second.tasks.getState().tasks.get(taskId)?.status).toBe('completed');
    // URLs that differ only in a blanked part are different receivers; plain URLs are their own key.
    expect(historyKey(withSecret('rotated'))).not.toBe(historyKey(url));
    expect(historyKey(`${receiver.url}?region_code=eu`)).not.toBe(
      historyKey(`${receiver.url}?region_code=us`),
    );
    expect(historyKey(receiver.url)).toBe(receiver.url);
  }, 20_000);
});

/** Every key and value of every object store in the database, as one string. */
async function dumpDatabase(factory: IDBFactory, name: string): Promise<string> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const open = factory.open(name);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => resolve(open.result);
  });
  const names = [...db.objectStoreNames];
  const tx = db.transaction(names, 'readonly');
  const all: unknown[] = [];
  for (const store of names) {
    const keys = tx.objectStore(store).getAllKeys();
    keys.onsuccess = () => all.push(keys.result);
    const values = tx.objectStore(store).getAll();
    values.onsuccess = () => all.push(values.result);
  }
  await new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
  });
  db.close();
  return JSON.stringify(all);
}

/** slow_job run on a connected engine until its result is fetched; its task id. */
async function runToResult(
  engine: ReturnType<typeof engineOverChannel>,
  args: Record<string, unknown>,
): Promise<string> {
  const { tools } = await engine.bridge.request({ type: 'listTools' });
  const run = await engine.bridge.request({
    type: 'run',
    tool: tools.find((t) => t.name === 'slow_job') as ToolInfo,
    args,
  });
  if (!run.ok || run.taskId === undefined) throw new Error(run.ok ? 'answered at once' : run.error.message);
  const taskId = run.taskId;
  await waitFor(() => engine.tasks.getState().tasks.get(taskId)?.result.state === 'fetched', 10_000);
  return taskId;
}
