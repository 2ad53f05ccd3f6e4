import {
  createDemoReceiver2026,
  type DemoReceiver2026,
  type DemoReceiver2026Options,
} from '../../src/devserver/demo-2026/receiver';
import { serveOnLoopback, type Arrivals } from './receivers';

export interface RunningReceiver2026 {
  /** The MCP endpoint. */
  url: string;
  port: number;
  /** HTTP requests that reached it, by HTTP method. */
  arrivals: Arrivals;
  receiver: DemoReceiver2026;
  close: () => Promise<void>;
}

/**
 * The 2026-07-28 demo receiver on a loopback port (a free one unless given). `dual` serves server 2.4's
 * dual-era default instead of the strict endpoint: 2025 initialize on a stateless leg, 2026 beside it.
 */
export async function startDemoReceiver2026(
  options: { port?: number; cors?: boolean; dual?: boolean } & Pick<
    DemoReceiver2026Options,
    'keepAliveMs' | 'maxTasks' | 'pushes'
  > = {},
): Promise<RunningReceiver2026> {
  const receiver = createDemoReceiver2026({
    cors: options.cors,
    legacy: options.dual ? 'stateless' : 'reject',
    keepAliveMs: options.keepAliveMs,
    maxTasks: options.maxTasks,
    pushes: options.pushes,
  });
  return { ...(await serveOnLoopback(receiver.router, receiver.close, options.port)), receiver };
}
