import { eachPage, normaliseTool, type ToolInfo } from '../mcp';
import type { ActiveCheckState } from '../tasks/core/report/report-types';
import { ActiveCheck, type CheckTarget } from './active-check';
import type { Connection } from './connection';
import type { Replies } from './messages';

/** The engine's one check at a time, on the current connection. */
export class CheckRunner {
  private current: { check: ActiveCheck; connectionId: number } | null = null;

  async start(
    conn: Connection | null,
    tool: string | undefined,
    onProgress: (state: ActiveCheckState) => void,
  ): Promise<Replies['checkReceiver']> {
    if (!conn || conn.closed || !conn.holder.session)
      return { ok: false, reason: 'Not connected to a receiver.' };
    if (this.current) return { ok: false, reason: 'A check is already running.' };
    const check = new ActiveCheck(targetFor(conn), { tool, onProgress });
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
    // tools/list paged by hand so that each page carries the check's deadline and stop signal.
    listTools: async (options) => {
      const tools: ToolInfo[] = [];
      const era = conn.holder.era;
      await eachPage(
        { request: (method, params) => conn.holder.request(method, params, options) },
        'tools/list',
        'tools',
        (item) => {
          const read = normaliseTool(item, { era });
          if (read.tool) tools.push(read.tool);
        },
      );
      return tools;
    },
    created: (taskId, created, call, sentAt) => {
      if (!conn.closed)
        conn.tracker.track(taskId, {
          origin: 'created',
          tool: call.tool,
          call,
          initial: created,
          source: 'create',
          sentAt,
        });
    },
  };
}
