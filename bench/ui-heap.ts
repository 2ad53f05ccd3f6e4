/**
 * JS heap of a page and of every dedicated Worker it runs, over CDP.
 *
 * The page: `Runtime.getHeapUsage` on a CDP session for the page. Workers: Playwright 1.65 opens no CDP session
 * for a Worker, so the page's session sets `Target.setAutoAttach` with `flatten: false`; each worker the page
 * starts then arrives as `Target.attachedToTarget` with a sessionId, and commands reach it wrapped in
 * `Target.sendMessageToTarget`, their answers in `Target.receivedMessageFromTarget`. Verified with Chromium 156:
 * the app's worker answers `Runtime.getHeapUsage` and `HeapProfiler.collectGarbage` this way. Call
 * watchWorkers before the page navigates, so that no worker starts unseen.
 */
import type { CDPSession } from '@playwright/test';

export interface HeapReading {
  /** bytes used by the page's JS heap */
  page: number;
  /** bytes used by each dedicated worker's JS heap (none: the page runs no worker) */
  workers: number[];
}

export interface HeapWatcher {
  /** With `gc`, collects garbage in each heap first, so that readings compare run to run. */
  read(options: { gc: boolean }): Promise<HeapReading>;
  workerUrls(): string[];
  /** Sends a CDP command to every dedicated worker the page runs; their answers, in order. */
  inWorkers(method: string, params?: Record<string, unknown>): Promise<unknown[]>;
}

const ANSWER_TIMEOUT_MS = 5000;

export async function watchWorkers(cdp: CDPSession): Promise<HeapWatcher> {
  const workers = new Map<string, string>();
  const pending = new Map<string, (message: { result?: unknown; error?: unknown } | null) => void>();
  let nextId = 0;
  cdp.on('Target.attachedToTarget', (event) => {
    if (event.targetInfo.type === 'worker') workers.set(event.sessionId, event.targetInfo.url);
  });
  cdp.on('Target.detachedFromTarget', (event) => {
    if (event.sessionId) workers.delete(event.sessionId);
  });
  cdp.on('Target.receivedMessageFromTarget', (event) => {
    const message = JSON.parse(event.message) as { id?: number; result?: unknown; error?: unknown };
    if (message.id === undefined) return;
    const key = `${event.sessionId}:${message.id}`;
    pending.get(key)?.(message);
    pending.delete(key);
  });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });

  const inWorker = async (
    sessionId: string,
    method: string,
    params: Record<string, unknown> = {},
  ): Promise<unknown> => {
    const id = ++nextId;
    const key = `${sessionId}:${id}`;
    const answer = new Promise<{ result?: unknown; error?: unknown } | null>((resolve) => {
      pending.set(key, resolve);
      setTimeout(() => {
        if (pending.delete(key)) resolve(null);
      }, ANSWER_TIMEOUT_MS);
    });
    await cdp.send('Target.sendMessageToTarget', {
      sessionId,
      message: JSON.stringify({ id, method, params }),
    });
    const message = await answer;
    if (!message || message.error) throw new Error(`${method} in worker: ${JSON.stringify(message?.error)}`);
    return message.result;
  };

  return {
    workerUrls: () => [...workers.values()],
    inWorkers: async (method, params) => {
      const answers: unknown[] = [];
      for (const sessionId of workers.keys()) answers.push(await inWorker(sessionId, method, params));
      return answers;
    },
    async read({ gc }) {
      if (gc) await cdp.send('HeapProfiler.collectGarbage');
      const page = (await cdp.send('Runtime.getHeapUsage')).usedSize;
      const sizes: number[] = [];
      for (const sessionId of workers.keys()) {
        try {
          if (gc) await inWorker(sessionId, 'HeapProfiler.collectGarbage');
          sizes.push(((await inWorker(sessionId, 'Runtime.getHeapUsage')) as { usedSize: number }).usedSize);
        } catch {
          sizes.push(NaN);
        }
      }
      return { page, workers: sizes };
    },
  };
}
