import { eachPage, normaliseTool, type Era, type ToolInfo } from '../../mcp';
import type { ActiveCheckState } from '../../rules/report-types';
import { ActiveCheck, type CheckTarget } from './active-check';
import { withOwnSignal, type Timing } from './probe';
import { keptCall } from '../calls';
import type { Connection } from '../connection/connection';
import type { Replies } from '../messages';

/** The engine's one check at a time, on the current connection. */
export class CheckRunner {
  private current: { check: ActiveCheck; connectionId: number } | null = null;

  /** `timing`: shorter waits for tests; unset, each check gets the defaults a person gets. */
  constructor(private readonly timing?: Partial<Timing>) {}

  async start(
    conn: Connection | null,
    tool: string | undefined,
    args: Record<string, unknown> | undefined,
    onProgress: (state: ActiveCheckState) => void,
  ): Promise<Replies['checkReceiver']> {
    if (!conn || conn.closed || !conn.holder.session)
      return { ok: false, reason: 'Not connected to a receiver.' };
    if (this.current) return { ok: false, reason: 'A check is already running.' };
    const check = new ActiveCheck(targetFor(conn), { tool, args, onProgress, timing: this.timing });
    this.current = { check, connectionId: conn.id };
    try {
      return { ok: true, state: await check.run() };
    } finally {
      this.current = null;
    }
  }

  /** True when a check was running (it stops and cleans up on its own). */
  stop(): boolean {
    if (!this.current) return false;
    this.current.check.stop();
    return true;
  }
}

function targetFor(conn: Connection): CheckTarget {
  return {
    era: conn.holder.era,
    support: conn.api.support,
    request: (method, params, options) => conn.holder.request(method, params, options),
    listTools: (options) =>
      pagedTools(
        (method, params, page) => conn.holder.request(method, params, page),
        conn.holder.era,
        options,
      ),
    created: (taskId, created, call, sentAt) => {
      if (!conn.closed)
        conn.tracker.track(taskId, {
          origin: 'created',
          // Marked, so the list and the detail tell the check's tasks from the person's.
          startedBy: 'check',
          tool: call.tool,
          call: keptCall(call.tool, call.args, call.ttl),
          initial: created,
          source: 'create',
          sentAt,
        });
    },
    observed: (taskId, read, meta) => {
      if (!conn.closed) conn.tracker.observeRead(taskId, read, meta);
    },
  };
}

type PageRequest = (
  method: string,
  params: Record<string, unknown>,
  options: { timeoutMs: number; signal: AbortSignal },
) => Promise<unknown>;

/**
 * tools/list paged by hand so that each page carries the check's deadline and stop signal: a signal of its
 * own per page that follows the check's, as every other request of the check (ask in active-check.ts).
 */
export async function pagedTools(
  request: PageRequest,
  era: Era,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<ToolInfo[]> {
  const tools: ToolInfo[] = [];
  await eachPage(
    {
      request: (method, params) =>
        withOwnSignal(options.signal, (signal) =>
          request(method, params ?? {}, { timeoutMs: options.timeoutMs, signal }),
        ),
    },
    'tools/list',
    'tools',
    (item) => {
      const read = normaliseTool(item, { era });
      if (read.tool) tools.push(read.tool);
    },
  );
  return tools;
}
