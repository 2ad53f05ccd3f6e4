/**
 * A receiver that misbehaves on purpose, for tests and benches: plain `node:http`, no SDK, MCP 2025-11-25
 * tasks over Streamable HTTP. One misbehaviour per **case**, each at its own path `/<case>/mcp` on one server,
 * so a test run starts it once, and the demo's faults case at `/faults/mcp?faults=a,b`. Everything not named
 * by a case follows the protocol: CORS for loopback origins, initialize, tools/list (one tool `job`,
 * taskSupport required), task-augmented tools/call, tasks/list (100 a page), tasks/get, tasks/result (blocks
 * while the task runs), tasks/cancel, a GET notification stream with `: ping` every 15 s, DELETE. The request
 * handling is the demo's (src/devserver/demo-faults/handler.ts); the cases are in cases.ts.
 *
 * Every timer belongs to a held-open request or stream and stops with it; `close()` ends them all.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from '../../../src/devserver/http-server.js';
import { type CaseState, sendJson } from '../../../src/devserver/demo-faults/wire.js';
import { FAULT_DESCRIPTIONS } from '../../../src/devserver/demo-faults/faults.js';
import { createFaultsHandler } from '../../../src/devserver/demo-faults/handler.js';
import { CASE_NAMES, type CaseName, type HostileReceiver } from './wire.js';
import { CASE_DESCRIPTIONS, buildSpecs } from './cases.js';

export { CASE_NAMES, type CaseName, type CaseCounts, type HostileReceiver } from './wire.js';
export { type TaskGetCount } from '../../../src/devserver/demo-faults/wire.js';
export { CASE_DESCRIPTIONS } from './cases.js';
export {
  FAULT_DESCRIPTIONS,
  FAULT_NAMES,
  parseFaults,
  type FaultName,
} from '../../../src/devserver/demo-faults/faults.js';

/** The hostile receiver's request handling, apart from its server. */
interface HostileHandler {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  caseOf(name: CaseName): CaseState;
  /** Clears the counts and recreates the tasks of one case, or of every case. */
  reset(name?: CaseName): void;
  /** Ends every held-open request and stream. */
  end(): void;
}

// ---------------------------------------------------------------------------------------------------------
// The server.

export async function startHostileReceiver(opts: { port?: number } = {}): Promise<HostileReceiver> {
  const handler = createHostileHandler();
  const server = createServer((req, res) => {
    handler.handle(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed) res.writeHead(500).end();
      else res.destroy();
    });
  });
  const listening = await listenOnLoopback(server, opts.port ?? 0);
  let closing: Promise<void> | undefined;
  const { caseOf } = handler;

  return {
    url: listening.url,
    caseUrl: (name) => `${listening.url}/${caseOf(name).name}/mcp`,
    faultsUrl: (faults) =>
      `${listening.url}/faults/mcp${faults.length > 0 ? `?faults=${faults.join(',')}` : ''}`,
    counts: (name) => {
      const c = caseOf(name);
      const k = c.counter;
      return {
        methods: Object.fromEntries(k.methods),
        GET: k.GET,
        POST: k.POST,
        DELETE: k.DELETE,
        OPTIONS: k.OPTIONS,
        responses: k.responses,
        tasksGet: Object.fromEntries(
          [...k.tasksGet].map(([id, e]) => [id, { count: e.count, at: [...e.at] }]),
        ),
        tasksGetUntracked: k.tasksGetUntracked,
        notificationsSent: k.notificationsSent,
        elicitationsSent: k.elicitationsSent,
        open: c.open,
      };
    },
    reset: (name) => handler.reset(name),
    close: () => {
      closing ??= (async () => {
        handler.end();
        await listening.close();
      })();
      return closing;
    },
  };
}

function createHostileHandler(): HostileHandler {
  const base = createFaultsHandler();
  const specs = buildSpecs(base.held);
  const cases = new Map<string, CaseState>();
  for (const name of CASE_NAMES) {
    cases.set(name, base.newCase(name, CASE_DESCRIPTIONS[name], specs[name]));
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!base.guard(req, res)) return;
    const [path = '/', query = ''] = (req.url ?? '/').split('?');
    const named = /^\/([a-z-]+)\/mcp\/?$/.exec(path)?.[1] ?? '';
    const c =
      named === 'faults'
        ? base.faultCase(new URLSearchParams(query).get('faults') ?? '', res)
        : cases.get(named);
    if (named === 'faults' && !c) return;
    if (!c) {
      const known = path === '/' || path === '';
      return sendJson(res, known ? 200 : 404, {
        ...(known ? {} : { error: `No case at ${path.slice(0, 200)}` }),
        cases: Object.fromEntries(
          CASE_NAMES.map((n) => [n, { path: `/${n}/mcp`, does: CASE_DESCRIPTIONS[n] }]),
        ),
        faults: { path: '/faults/mcp?faults=a,b', names: FAULT_DESCRIPTIONS },
      });
    }
    await base.serve(c, req, res);
  };

  const caseOf = (name: CaseName): CaseState => {
    const c = cases.get(name);
    if (!c) throw new Error(`Unknown hostile case: ${String(name)}`);
    return c;
  };

  return {
    handle,
    caseOf,
    reset: (name) => {
      for (const c of name ? [caseOf(name)] : cases.values()) base.resetCase(c);
    },
    end: base.end,
  };
}
