import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { EngineHost, type HostOptions } from '../../src/engine/host';
import { EngineBridge, type EnginePort } from '../../src/bridge/engine-bridge';
import type { Batch, FromEngine, Health, ToEngine } from '../../src/engine/messages';
import { applyTaskChanges } from '../../src/tracker/task-changes';
import { createTasksStore } from '../../src/tracker/task-store';

/**
 * The page's bridge and the engine on either side of a real MessageChannel, so every command, reply and
 * batch goes through structured clone as it does between a page and its Worker. `healths` keeps every
 * connection state the engine reported, in order.
 */
export function engineOverChannel(
  options: HostOptions = {},
  /** The page shows the traffic log (its drawer open), so batches carry every message; off, counts only. */
  { mirrorTraffic = true }: { mirrorTraffic?: boolean } = {},
) {
  const { port1, port2 } = new MessageChannel();
  const host = new EngineHost((message: FromEngine) => port2.postMessage(message), options);
  port2.on('message', (message: ToEngine) => host.receive(message));
  const pagePort: EnginePort & { port: MessagePort } = {
    port: port1,
    postMessage: (message) => port1.postMessage(message),
    onmessage: null,
  };
  port1.on('message', (data: FromEngine) => pagePort.onmessage?.({ data } as MessageEvent<FromEngine>));
  const bridge = new EngineBridge(pagePort);
  if (mirrorTraffic) void bridge.request({ type: 'trafficMirror', on: true });
  const batches: Batch[] = [];
  const healths: Health[] = [];
  const tasks = createTasksStore();
  bridge.onBatch((received) => {
    for (const batch of received) {
      batches.push(batch);
      if (batch.tasks) applyTaskChanges(tasks, batch.tasks);
      if (batch.connection?.health) healths.push(batch.connection.health);
    }
  });
  return {
    bridge,
    batches,
    healths,
    tasks,
    health: () => healths.at(-1),
    close: async () => {
      await bridge.request({ type: 'disconnect' });
      port1.close();
      port2.close();
    },
  };
}

/** Polling as tests want it: never paused, no floor under what the receiver asks. */
export const TEST_SETTINGS = { paused: false, minPollIntervalMs: 0 };

/**
 * An engine over the channel, connected to `url` as connection 1; `later` (stopAfterEach) closes it after the
 * test, whether the connect worked or not.
 */
export async function connectedEngine(
  url: string,
  later: (stop: () => Promise<void>) => void,
  options: HostOptions = {},
): Promise<ReturnType<typeof engineOverChannel>> {
  const engine = engineOverChannel(options);
  later(engine.close);
  const reply = await engine.bridge.request({
    type: 'connect',
    connectionId: 1,
    url,
    headers: {},
    settings: TEST_SETTINGS,
  });
  if (!reply.ok)
    throw new Error(`could not connect to ${url}: ${reply.stale ? 'stale' : reply.error.message}`);
  return engine;
}
