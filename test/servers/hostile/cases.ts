/** The hostile receiver's cases: what each one does wrong, and how. */
import { randomBytes } from 'node:crypto';
import {
  type CaseSpec,
  type CaseState,
  Held,
  makeTask,
  PAGE_SIZE,
  relatedMeta,
  result,
  type Rpc,
  rpcError,
  sendJson,
  sendParts,
  sseMessage,
  startSse,
  STREAM_PING_MS,
  type WireTask,
} from '../../../src/devserver/demo-faults/wire.js';
import {
  type CaseName,
  DAY_MS,
  DEEP_LEVELS,
  ELICITATIONS,
  FLOOD_FOR_MS,
  FLOOD_KNOWN_SHARE,
  FLOOD_PER_SECOND,
  FLOOD_TICK_MS,
  HUGE_LIST_SIZE,
  HUGE_STATUS_BYTES,
  RETRY_AFTER_MS,
  RETRY_AFTER_SECONDS,
  WIDE_PROPERTIES,
} from './wire.js';

export const CASE_DESCRIPTIONS: Record<CaseName, string> = {
  'huge-interval': 'two working tasks with pollInterval 1e12 ms and 2^31 ms (past setTimeout’s limit)',
  'retry-after-http': `tasks/get answers HTTP 429 with Retry-After: ${RETRY_AFTER_SECONDS} (seconds) and a JSON-RPC error body`,
  'retry-after-rpc': `tasks/get answers JSON-RPC -32429 Too Many Requests with data.retryAfterMs ${RETRY_AFTER_MS}`,
  'sse-retry-zero': 'the GET stream answers `retry: 0` and closes at once, every time',
  'deep-result': `one completed task whose result's structuredContent is nested ${DEEP_LEVELS.toLocaleString('en')} levels deep`,
  'resource-result':
    'one completed tool task whose tasks/result answers what resources/read would (`contents`, no `content`), as the user documents have it',
  'huge-status': 'tasks/get answers a 20 MB statusMessage; the task works for ever',
  'notification-flood': `the GET stream sends ~${FLOOD_PER_SECOND} notifications/tasks/status a second for ${FLOOD_FOR_MS / 1000} s after it opens, mostly for unknown task ids`,
  'endless-list': 'tasks/list returns 100 tasks a page and a fresh nextCursor on every page, for ever',
  'huge-list': `${HUGE_LIST_SIZE.toLocaleString('en')} working tasks, listed 100 a page`,
  'silent-get': 'tasks/get is never answered (held open until the receiver closes)',
  'endless-sse-answer':
    'tasks/get answers text/event-stream with `: ping` every second and never the response',
  'wrong-id': 'tasks/get answers a correct-looking response carrying another id (id + 1000)',
  'future-created': 'one task created and updated a day in the future, one normal task (ttl 10 min)',
  'ttl-absurd': 'one working task with ttl 1e300',
  'elicitation-flood': `one input_required task; tasks/result streams ${ELICITATIONS.toLocaleString('en')} elicitation/create requests and stays open`,
  'wide-elicitation': `one input_required task; tasks/result streams one elicitation/create with ${WIDE_PROPERTIES.toLocaleString('en')} string properties`,
};

// ---------------------------------------------------------------------------------------------------------
// Big payloads, built once on first use and reused.

let hugeStatus: Buffer | undefined;
/** 20 MB of JSON-safe ASCII, the body of a JSON string. */
export function hugeStatusBytes(): Buffer {
  if (!hugeStatus) {
    const unit = 'This statusMessage is 20 MB long. ';
    hugeStatus = Buffer.from(
      unit.repeat(Math.ceil(HUGE_STATUS_BYTES / unit.length)).slice(0, HUGE_STATUS_BYTES),
    );
  }
  return hugeStatus;
}

let deepValue: Buffer | undefined;
/** `{"a":{"a":…{"depth":100000}…}}`: written as text, since JSON.stringify would overflow the stack. */
export function deepValueBytes(): Buffer {
  if (!deepValue) {
    const open = '{"a":'.repeat(DEEP_LEVELS - 1);
    const close = '}'.repeat(DEEP_LEVELS - 1);
    deepValue = Buffer.from(`${open}{"depth":${DEEP_LEVELS}}${close}`);
  }
  return deepValue;
}

let wideSchema: string | undefined;
/** A requestedSchema with 10,000 string properties, as JSON text. */
export function wideSchemaJson(): string {
  if (!wideSchema) {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < WIDE_PROPERTIES; i++) {
      properties[`field_${i}`] = { type: 'string', title: `Field ${i}`, description: `Answer number ${i}` };
    }
    wideSchema = JSON.stringify({ type: 'object', properties, required: ['field_0'] });
  }
  return wideSchema;
}

// ---------------------------------------------------------------------------------------------------------
// The cases.

export const one =
  (taskId: string, over: Partial<WireTask> = {}) =>
  (at: number) => [makeTask(taskId, at, over)];

/** tasks/result on an input_required task: an SSE stream of elicitation/create requests that stays open. */
export function elicitationStream(
  registry: Set<Held>,
  rpc: Rpc,
  task: WireTask,
  count: number,
  params: (i: number) => string,
): boolean {
  if (task.status !== 'input_required') return false;
  const { c, res } = rpc;
  const call = ++c.created;
  startSse(res);
  const held = new Held(registry, c, res);
  for (let i = 0; i < count; i++) {
    // params is JSON text already (the wide schema is built once as text).
    held.write(
      `event: message\nid: ${call}-${i}\ndata: {"jsonrpc":"2.0","id":"elicit-${call}-${i}","method":"elicitation/create","params":${params(i)}}\n\n`,
    );
    c.counter.elicitationsSent++;
  }
  held.every(STREAM_PING_MS, () => held.write(': ping\n\n'));
  return true;
}

export const endlessTask = (c: CaseState, taskId: string) =>
  makeTask(taskId, c.resetAt, { statusMessage: 'made up from the cursor' });

export function buildSpecs(registry: Set<Held>): Record<CaseName, CaseSpec> {
  return {
    'huge-interval': {
      seed: (at) => [
        makeTask('interval-1e12', at, { pollInterval: 1e12, statusMessage: 'pollInterval 1e12 ms' }),
        makeTask('interval-2pow31', at, { pollInterval: 2 ** 31, statusMessage: 'pollInterval 2^31 ms' }),
      ],
      newTaskPollInterval: 1e12,
    },

    'retry-after-http': {
      seed: one('rate-limited-http'),
      get: ({ res, id }) =>
        sendJson(
          res,
          429,
          {
            jsonrpc: '2.0',
            id,
            error: { code: -32429, message: `Too Many Requests: retry after ${RETRY_AFTER_SECONDS} s` },
          },
          { 'Retry-After': String(RETRY_AFTER_SECONDS) },
        ),
    },

    'retry-after-rpc': {
      seed: one('rate-limited-rpc'),
      // Taskscope's classifier (src/mcp/classify.ts) reads data.retryAfterMs as ms and data.retryAfter as s.
      get: ({ res, id }) => rpcError(res, id, -32429, 'Too Many Requests', { retryAfterMs: RETRY_AFTER_MS }),
    },

    'sse-retry-zero': {
      seed: one('retry-zero'),
      stream: (_c, res) => {
        startSse(res);
        res.end('retry: 0\n\n');
      },
    },

    'deep-result': {
      seed: one('deep', {
        status: 'completed',
        statusMessage: `result nested ${DEEP_LEVELS} levels deep`,
      }),
      result: ({ res, id }, task) => {
        if (task.status !== 'completed') return false;
        const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"structuredContent is nested ${DEEP_LEVELS} levels deep"}],"isError":false,"_meta":${JSON.stringify(relatedMeta(task.taskId))},"structuredContent":`;
        sendParts(res, [head, deepValueBytes(), '}}']);
        return true;
      },
    },

    'resource-result': {
      seed: one('resource-result', {
        status: 'completed',
        statusMessage: 'its result is a resource content array, not a CallToolResult',
      }),
      result: ({ res, id }, task) => {
        if (task.status !== 'completed') return false;
        result(res, id, {
          contents: [
            { uri: 'file:///report.txt', mimeType: 'text/plain', text: 'what resources/read answers' },
          ],
          _meta: relatedMeta(task.taskId),
        });
        return true;
      },
    },

    'huge-status': {
      seed: one('huge-status', { statusMessage: 'tasks/get answers a 20 MB statusMessage' }),
      get: ({ res, id }, task) => {
        if (!task) return rpcError(res, id, -32602, 'Task not found');
        const marker = '@@HUGE_STATUS@@';
        const [before, after] = JSON.stringify({
          jsonrpc: '2.0',
          id,
          result: { ...task, statusMessage: marker },
        }).split(`"${marker}"`);
        sendParts(res, [`${before}"`, hugeStatusBytes(), `"${after}`]);
      },
    },

    'notification-flood': {
      seed: one('flood-listed'),
      onStreamOpen: (c, held) => {
        const started = Date.now();
        const known = c.listed[0];
        let sent = 0;
        held.every(FLOOD_TICK_MS, () => {
          const elapsed = Date.now() - started;
          if (elapsed >= FLOOD_FOR_MS) return false;
          // Skip a tick rather than buffer without bound when the client does not read.
          if (held.res.writableLength > 4 * 1024 * 1024) return;
          const due = Math.min(
            Math.floor((elapsed * FLOOD_PER_SECOND) / 1000),
            (FLOOD_FOR_MS * FLOOD_PER_SECOND) / 1000,
          );
          const batch: string[] = [];
          const nowIso = new Date().toISOString();
          for (let n = 0; sent < due && n < FLOOD_PER_SECOND; n++) {
            sent++;
            const params =
              known && Math.random() < FLOOD_KNOWN_SHARE
                ? { ...known, statusMessage: `flood #${sent}`, lastUpdatedAt: nowIso }
                : {
                    ...makeTask(`flood-${randomBytes(6).toString('hex')}`, started),
                    statusMessage: `flood #${sent}`,
                    lastUpdatedAt: nowIso,
                  };
            batch.push(
              sseMessage(`f${sent}`, { jsonrpc: '2.0', method: 'notifications/tasks/status', params }),
            );
          }
          c.counter.notificationsSent += batch.length;
          if (batch.length > 0) held.write(batch.join(''));
        });
      },
    },

    'endless-list': {
      seed: () => [],
      virtualTask: (c, taskId) => (/^endless-\d+-\d+$/.test(taskId) ? endlessTask(c, taskId) : undefined),
      list: ({ c, res, id }, cursor) => {
        let page = 0;
        if (cursor !== undefined) {
          const match = /^e(\d+)\./.exec(cursor);
          if (!match) return rpcError(res, id, -32602, `Invalid cursor: ${cursor.slice(0, 100)}`);
          page = Number(match[1]);
        }
        const tasks = Array.from({ length: PAGE_SIZE }, (_, i) => {
          const taskId = `endless-${page}-${i}`;
          return c.byId.get(taskId) ?? endlessTask(c, taskId);
        });
        result(res, id, { tasks, nextCursor: `e${page + 1}.${randomBytes(4).toString('hex')}` });
      },
    },

    'huge-list': {
      seed: (at) => Array.from({ length: HUGE_LIST_SIZE }, (_, i) => makeTask(`huge-list-${i}`, at)),
    },

    'silent-get': {
      seed: one('silent'),
      get: ({ c, res }) => void new Held(registry, c, res),
    },

    'endless-sse-answer': {
      seed: one('endless-sse'),
      get: ({ c, res }) => {
        startSse(res);
        const held = new Held(registry, c, res);
        held.write(': ping\n\n');
        held.every(1000, () => held.write(': ping\n\n'));
      },
    },

    'wrong-id': {
      seed: one('wrong-id'),
      get: ({ res, id }, task) => {
        const wrong = typeof id === 'number' ? id + 1000 : `${id}+1000`;
        if (!task) return rpcError(res, wrong, -32602, 'Task not found');
        result(res, wrong, task);
      },
    },

    'future-created': {
      seed: (at) => [
        makeTask('from-tomorrow', at + DAY_MS, { statusMessage: 'createdAt and lastUpdatedAt a day ahead' }),
        makeTask('normal', at, { statusMessage: 'ttl 10 min' }),
      ],
    },

    'ttl-absurd': {
      seed: one('ttl-1e300', { ttl: 1e300, statusMessage: 'ttl 1e300 ms' }),
    },

    'elicitation-flood': {
      seed: one('elicit-flood', {
        status: 'input_required',
        statusMessage: `needs ${ELICITATIONS} answers: call tasks/result`,
      }),
      result: (rpc, task) =>
        elicitationStream(registry, rpc, task, ELICITATIONS, (i) =>
          JSON.stringify({
            mode: 'form',
            message: `Question ${i + 1} of ${ELICITATIONS}`,
            requestedSchema: {
              type: 'object',
              properties: { answer: { type: 'string', title: `Answer ${i + 1}` } },
              required: ['answer'],
            },
            _meta: relatedMeta(task.taskId),
          }),
        ),
    },

    'wide-elicitation': {
      seed: one('wide-elicit', {
        status: 'input_required',
        statusMessage: `needs one answer with ${WIDE_PROPERTIES} fields: call tasks/result`,
      }),
      result: (rpc, task) =>
        elicitationStream(
          registry,
          rpc,
          task,
          1,
          () =>
            `{"mode":"form","message":"One form with ${WIDE_PROPERTIES} fields","requestedSchema":${wideSchemaJson()},"_meta":${JSON.stringify(relatedMeta(task.taskId))}}`,
        ),
    },
  };
}
