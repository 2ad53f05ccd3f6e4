/**
 * The trace format, and the reader of trace files. A Taskscope trace is everything observed of one receiver, to
 * share, to open in another browser and to replay with no receiver. This schema is the format's one source: the
 * types `Trace`, `TraceTask` and `TraceReceiver` are inferred from it, and the JSON Schema published in
 * public/trace.schema.json is generated from it (npm run trace:schema). A file is untrusted input (someone
 * else's export, or one made by hand): every part the views render is checked and capped here, so a trace
 * renders under the same rules as a live receiver. Times are wall-clock ms unless said.
 */
import { z } from 'zod';
import {
  ERROR_KINDS,
  MAX_RESULT_DEPTH,
  MAX_RESULT_NODES,
  MAX_STATUS_MESSAGE,
  MAX_TASK_ID,
  TASK_STATUSES,
  isOmittedBody,
  limitJson,
  type ClassifiedError,
  type HttpFacts,
  type ServerDescription,
  type ServerTaskSupport,
  type TaskResultSnapshot,
  type TaskSnapshot,
  type ToolInfo,
  type TrafficEvent,
  type Warning,
  type Normalised,
} from '../../mcp';
import type { TaskCall, TimelineEntry } from '../../tracker/task-store';
import type { InboxEvent, InboxRequest } from '../messages';
import {
  TRACE_FORMAT,
  TRACE_VERSION,
  MAX_TRACE_BYTES,
  MAX_TRACE_ENTRIES_PER_TASK,
  MAX_TRACE_INBOX,
  MAX_TRACE_TASKS,
  MAX_TRACE_TOOLS,
  MAX_TRACE_TRAFFIC,
} from './limits';
/** Traffic bodies as the live log keeps them (forTrafficLog): deeper or larger ones are cut, with a warning. */
const TRAFFIC_BODY_LIMITS = { maxDepth: 64, maxNodes: 20_000 };

const NAME = 1_000;
const LINE = 4_000;
const TEXT = 20_000;
const URL_MAX = 8_192;
const HEADER_VALUE = 8_192;
const MAX_HEADERS = 200;

const text = (max: number) => z.string().max(max, `longer than ${max} characters`);
const ms = z.number();
const count = z.number().int().nonnegative();

/** Counts depth and values without recursion: a file can nest 100,000 levels. */
function jsonSize(
  value: unknown,
  stopAt: { depth: number; nodes: number },
): { depth: number; nodes: number } {
  let depth = 0;
  // Counted as limitJson counts: every value below the root.
  let nodes = -1;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, level] = stack.pop() as [unknown, number];
    if (++nodes > stopAt.nodes + 1) break;
    if (typeof node !== 'object' || node === null) continue;
    depth = Math.max(depth, level);
    if (depth > stopAt.depth) break;
    for (const child of Object.values(node)) stack.push([child, level + 1]);
  }
  return { depth, nodes };
}

/** A JSON object (arguments, schemas, capabilities, results), refused beyond a depth and a number of values. */
const boundedObject = (limits: { maxDepth: number; maxNodes: number }) =>
  z
    .record(z.string(), z.unknown())
    .meta({
      description: `A JSON object at most ${limits.maxDepth} levels deep, with at most ${limits.maxNodes} values`,
    })
    .superRefine((value, ctx) => {
      const size = jsonSize(value, { depth: limits.maxDepth, nodes: limits.maxNodes });
      if (size.depth > limits.maxDepth)
        ctx.addIssue({ code: 'custom', message: `nested deeper than ${limits.maxDepth} levels` });
      // limitJson leaves one note past its budget, so a value it cut still fits.
      else if (size.nodes > limits.maxNodes + 1)
        ctx.addIssue({ code: 'custom', message: `more than ${limits.maxNodes} values` });
    });

/** Only http and https: a `javascript:` or `data:` URL must never become a link or a fetch. */
const httpUrl = z
  .url({ protocol: /^https?$/, error: 'not an http or https URL' })
  .max(URL_MAX, `longer than ${URL_MAX} characters`);

const headers = z
  .record(text(NAME), text(HEADER_VALUE))
  .refine((h) => Object.keys(h).length <= MAX_HEADERS, `more than ${MAX_HEADERS} headers`);

const taskStatus = z.enum(TASK_STATUSES);
const era = z.enum(['2025-11-25', '2026-07-28']);

const WARNING_CODES = [
  'not-an-object',
  'missing-task-id',
  'task-id-mismatch',
  'unknown-status',
  'missing-status',
  'bad-timestamp',
  'bad-ttl',
  'bad-poll-interval',
  'illegal-transition',
  'time-went-backwards',
  'schema',
  'bad-result',
  'newer-protocol',
] as const satisfies ReadonlyArray<Warning['code']>;
// Fails to compile when Warning gains a code this list lacks.
const everyWarningCode: Record<Exclude<Warning['code'], (typeof WARNING_CODES)[number]>, never> = {};
void everyWarningCode;

const warning = z.object({ code: z.enum(WARNING_CODES), message: text(LINE) });
const warnings = z.array(warning).max(1_000);

const classifiedError = z.object({
  kind: z.enum(ERROR_KINDS),
  message: text(LINE),
  code: z.number().int().optional(),
  httpStatus: z.number().int().optional(),
  retryAfterMs: ms.optional(),
  detail: text(TEXT).optional(),
  diagnosis: z.enum(['cors', 'unreachable']).optional(),
});

const observationEntry = z.object({
  kind: z.literal('observation'),
  at: ms,
  source: z.enum(['create', 'poll', 'notification', 'list', 'cancel', 'probe', 'check']),
  sentAt: ms.optional(),
  latencyMs: ms.optional(),
  intervalMs: ms.optional(),
  status: taskStatus.nullable(),
  statusMessage: text(MAX_STATUS_MESSAGE).optional(),
  lastUpdatedAt: text(NAME).optional(),
  createdAt: text(NAME).optional(),
  ttl: ms.nullable().optional(),
  pollInterval: ms.optional(),
  warnings,
});

const timelineEntry = z.discriminatedUnion(
  'kind',
  [
    observationEntry,
    z.object({
      kind: z.literal('error'),
      at: ms,
      sentAt: ms,
      source: z.enum(['poll', 'probe', 'cancel']),
      error: classifiedError,
      retryInMs: ms.optional(),
    }),
    z.object({
      kind: z.literal('result'),
      at: ms,
      sentAt: ms,
      latencyMs: ms,
      outcome: z.enum(['fetched', 'not-ready', 'failed', 'unavailable']),
      error: classifiedError.optional(),
      warnings,
    }),
    z.object({ kind: z.literal('purged'), at: ms, error: classifiedError }),
    z.object({
      kind: z.literal('input'),
      at: ms,
      method: text(NAME),
      phase: z.enum(['asked', 'answered', 'cancelled']),
      detail: text(LINE).optional(),
    }),
    z.object({
      kind: z.literal('session'),
      at: ms,
      phase: z.enum(['ended', 'known-again', 'restored']),
      detail: text(LINE),
    }),
    z.object({
      kind: z.literal('progress'),
      at: ms,
      progress: z.number(),
      total: z.number().optional(),
      message: text(LINE).optional(),
    }),
    z.object({
      kind: z.literal('log'),
      at: ms,
      level: text(NAME),
      logger: text(NAME).optional(),
      text: text(TEXT),
    }),
  ],
  {
    error: (issue) =>
      issue.code === 'invalid_union'
        ? 'not a timeline entry: kind must be one of observation, error, result, purged, input, session, progress, log'
        : undefined,
  },
);

const taskSnapshot = z.object({
  taskId: text(MAX_TASK_ID),
  status: taskStatus.nullable(),
  statusMessage: text(MAX_STATUS_MESSAGE).optional(),
  createdAt: text(NAME).optional(),
  createdAtMs: ms.optional(),
  lastUpdatedAt: text(NAME).optional(),
  lastUpdatedAtMs: ms.optional(),
  ttl: ms.nullable().optional(),
  pollInterval: ms.optional(),
  shape: z.enum(['flat', 'wrapped', 'create', 'v2']),
});

const RESULT_LIMITS = { maxDepth: MAX_RESULT_DEPTH, maxNodes: MAX_RESULT_NODES };

const taskResult = z.object({
  value: z.object({
    result: boundedObject(RESULT_LIMITS).nullable(),
    envelopeStatus: taskStatus.optional(),
    isError: z.boolean(),
    shape: z.enum(['plain', 'envelope', 'inline']),
  }),
  warnings,
});

const taskCall = z.object({
  tool: text(NAME),
  args: boundedObject({ maxDepth: 32, maxNodes: 50_000 }),
  ttl: ms.optional(),
});

const traceTask = z.object({
  taskId: text(MAX_TASK_ID),
  tool: text(NAME).optional(),
  call: taskCall.optional(),
  origin: z.enum(['created', 'list', 'manual', 'notification']),
  startedBy: z
    .literal('check')
    .optional()
    .describe("Created by the report card's check (absent in traces from before the mark)."),
  firstSeenAt: ms,
  status: taskStatus.nullable(),
  lifecycle: z.enum(['live', 'terminal', 'purged', 'unknown', 'session-ended']),
  entries: z.array(timelineEntry).max(MAX_TRACE_ENTRIES_PER_TASK).describe('The timeline, oldest first.'),
  droppedEntries: count
    .optional()
    .describe(
      `Older entries the tracker let go of (it keeps the newest ${MAX_TRACE_ENTRIES_PER_TASK} per task).`,
    ),
  sessionId: text(NAME).optional().describe('The session the task was last known in.'),
  progress: z
    .object({ progress: z.number(), total: z.number().optional(), message: text(LINE).optional(), at: ms })
    .optional(),
  snapshot: taskSnapshot.optional(),
  result: taskResult
    .optional()
    .describe(
      'The result as fetched, whole (the traffic log cuts bodies over 64 KB; replay reads results from here).',
    ),
});

const tool = z.object({
  name: text(NAME),
  title: text(NAME).optional(),
  description: text(TEXT).optional(),
  inputSchema: boundedObject({ maxDepth: 32, maxNodes: 50_000 }),
  taskSupport: z.enum(['forbidden', 'optional', 'required', 'receiver']),
  readOnly: z.literal(true).optional(),
});

const serverDescription = z.object({
  name: text(NAME),
  title: text(NAME).optional(),
  version: text(NAME),
  protocolVersion: text(NAME).optional(),
  instructions: text(TEXT).optional(),
  capabilities: boundedObject({ maxDepth: 16, maxNodes: 5_000 }),
});

const receiver = z.object({
  url: httpUrl.describe("The receiver's URL, with its query's secrets redacted."),
  era: era.optional(),
  protocolVersion: text(NAME).optional(),
  server: serverDescription.optional(),
  support: z
    .object({
      list: z.boolean(),
      cancel: z.boolean(),
      toolCall: z.boolean(),
      era: era.optional(),
      onlyIn2026: z.boolean().optional(),
    })
    .optional()
    .describe(
      'What the receiver supports of tasks (list, cancel, task-augmented tools/call), as its card shows.',
    ),
  sessionId: text(NAME)
    .optional()
    .describe(
      'The Mcp-Session-Id at export, kept even when secrets are redacted: MCP forbids receivers to use a session ' +
        'for authentication, and without it the tasks of two sessions in one trace cannot be told apart.',
    ),
  headers: headers.optional().describe('Request headers the person set, values of secret ones "[redacted]".'),
});

const rpcId = z.union([text(NAME), z.number()]);
const inboxReply = z.union([
  z.object({ result: boundedObject({ maxDepth: 32, maxNodes: 50_000 }) }),
  z.object({ error: z.object({ code: z.number().int(), message: text(LINE) }) }),
]);

const inboxEvent = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('asked'),
    request: z.object({
      key: text(NAME),
      connectionId: z.number(),
      requestId: rpcId,
      method: text(NAME),
      params: boundedObject({ maxDepth: 32, maxNodes: 50_000 }),
      relatedTaskId: text(MAX_TASK_ID).optional(),
      receivedAt: ms,
    }),
  }),
  z.object({
    kind: z.literal('settled'),
    key: text(NAME),
    state: z.enum(['answered', 'cancelled']),
    outcome: text(LINE),
    at: ms.optional(),
    reply: inboxReply.optional(),
  }),
]);

const httpFacts = z.object({
  method: text(32),
  url: httpUrl,
  requestHeaders: headers,
  status: z.number().int(),
  responseHeaders: headers,
  wallStartedAt: ms,
  waitMs: ms,
});

const trafficEvent = z.object({
  seq: z.number().int(),
  connectionId: z.number().int().optional(),
  at: ms,
  wallTime: ms,
  direction: z.enum(['out', 'in']),
  kind: z.enum(['request', 'response', 'error', 'notification', 'http-error', 'auth']),
  method: text(NAME).optional(),
  id: rpcId.optional(),
  httpStatus: z.number().int().optional(),
  bytes: z.number().int(),
  requestSeq: z.number().int().optional(),
  latencyMs: ms.optional(),
  http: httpFacts.optional(),
  // Checked below, where a body past the live log's limits is cut rather than the whole trace refused.
  message: z.unknown(),
});

export const traceSchema = z
  .object({
    format: z.literal(TRACE_FORMAT),
    version: z.literal(TRACE_VERSION),
    exportedAt: text(NAME).describe('ISO time of export.'),
    startedAt: ms.describe("The start of the span the trace covers: what a replay's scrubber runs over."),
    endedAt: ms.describe('The end of the span the trace covers.'),
    redacted: z
      .array(text(NAME))
      .max(1_000)
      .describe(
        'What was replaced by "[redacted]": header names, `?name` for a URL query parameter, `url password`. ' +
          'Empty when the person chose to keep secrets; HTTP facts in the traffic are redacted either way.',
      ),
    receiver,
    tools: z.array(tool).max(MAX_TRACE_TOOLS),
    tasks: z
      .array(traceTask)
      .max(MAX_TRACE_TASKS)
      .describe('Each task as observed: record, last snapshot, result.'),
    inbox: z
      .array(inboxEvent)
      .max(MAX_TRACE_INBOX)
      .describe("The receiver's requests to the person (elicitation, sampling) and what became of them."),
    traffic: z
      .array(trafficEvent)
      .max(MAX_TRACE_TRAFFIC)
      .describe('Every JSON-RPC message kept in the traffic log, oldest first.'),
  })
  .meta({
    title: 'Taskscope trace',
    description:
      'Everything Taskscope observed of one MCP receiver: receiver, tools, tasks with their timelines and results, ' +
      'the inbox and the JSON-RPC traffic. Generated from src/engine/trace/schema.ts; do not edit by hand.',
  });

export type Trace = z.output<typeof traceSchema>;
export type TraceReceiver = Trace['receiver'];
export type TraceTask = Trace['tasks'][number];

// A trace carries types the tracker, the engine and the MCP layer own (a task's timeline, snapshot and result,
// tools, the inbox, the traffic). Each must match its part of the schema both ways, in fields and in values:
// what the tracker records must export, and what a file holds must replay. A difference fails to compile.
type KeyDiff<A, B> = Exclude<keyof A, keyof B> | Exclude<keyof B, keyof A>;
type Item<T> = T extends ReadonlyArray<infer I> ? I : never;
type FileEntry = Item<TraceTask['entries']>;
type EntryDiff = {
  [K in TimelineEntry['kind']]: KeyDiff<Extract<TimelineEntry, { kind: K }>, Extract<FileEntry, { kind: K }>>;
}[TimelineEntry['kind']];
type InboxDiff =
  | KeyDiff<Extract<InboxEvent, { kind: 'settled' }>, Extract<Item<Trace['inbox']>, { kind: 'settled' }>>
  | KeyDiff<InboxRequest, Extract<Item<Trace['inbox']>, { kind: 'asked' }>['request']>;
type TrafficItem = Item<Trace['traffic']>;
function noFieldsDiffer<D extends PropertyKey>(fields: Record<D, never>): void {
  void fields;
}
noFieldsDiffer<
  | KeyDiff<ServerDescription, NonNullable<TraceReceiver['server']>>
  | KeyDiff<ServerTaskSupport, NonNullable<TraceReceiver['support']>>
  | KeyDiff<TaskSnapshot, NonNullable<TraceTask['snapshot']>>
  | KeyDiff<TaskResultSnapshot, NonNullable<TraceTask['result']>['value']>
  | KeyDiff<TaskCall, NonNullable<TraceTask['call']>>
  | KeyDiff<ClassifiedError, Extract<FileEntry, { kind: 'purged' }>['error']>
  | EntryDiff
  | KeyDiff<ToolInfo, Item<Trace['tools']>>
  | InboxDiff
  | KeyDiff<TrafficEvent, TrafficItem>
  | KeyDiff<HttpFacts, NonNullable<TrafficItem['http']>>
>({});
/** Compiles only when A and B are assignable to each other. */
function sameValues<A, B>(check: { toFile: (a: A) => B; fromFile: (b: B) => A }): void {
  void check;
}
const same = { toFile: <T>(a: T) => a, fromFile: <T>(b: T) => b };
sameValues<TimelineEntry, FileEntry>(same);
sameValues<TaskSnapshot, NonNullable<TraceTask['snapshot']>>(same);
sameValues<Normalised<TaskResultSnapshot>, NonNullable<TraceTask['result']>>(same);
sameValues<TaskCall, NonNullable<TraceTask['call']>>(same);
sameValues<ToolInfo, Item<Trace['tools']>>(same);
sameValues<InboxEvent, Item<Trace['inbox']>>(same);
sameValues<TrafficEvent, TrafficItem>(same);
sameValues<ServerDescription, NonNullable<TraceReceiver['server']>>(same);

/** A recording longer than this is refused. Longer than a day is common: a preserved log keeps its history. */
export const MAX_TRACE_SPAN_MS = 366 * 24 * 60 * 60 * 1000;
/** How far a recorded time may lie outside startedAt…endedAt (clocks read a moment apart, rounding). */
const SPAN_SLACK_MS = 60_000;

const encoder = new TextEncoder();

/**
 * A message's size as JSON, recomputed: the file's number could make a tiny body look huge (or the reverse)
 * in every size the views show. A note the log put in place of a body keeps the file's size of what it
 * replaced (nothing else knows it), bounded by what a trace can hold.
 */
function trafficBytes(event: TrafficEvent): number {
  if (isOmittedBody(event.message)) return Math.max(-1, Math.min(event.bytes, MAX_TRACE_BYTES));
  try {
    return encoder.encode(JSON.stringify(event.message)).length;
  } catch {
    return -1;
  }
}

/** The first recorded time outside the trace's span, described, or undefined when all lie within it. */
function timeOutsideSpan(trace: Trace): string | undefined {
  const from = trace.startedAt - SPAN_SLACK_MS;
  const to = trace.endedAt + SPAN_SLACK_MS;
  const outside = (at: number | undefined) => at !== undefined && (at < from || at > to);
  for (const [i, task] of trace.tasks.entries()) {
    if (outside(task.firstSeenAt)) return `tasks[${i}].firstSeenAt`;
    for (const [j, entry] of task.entries.entries())
      if (outside(entry.at)) return `tasks[${i}].entries[${j}].at`;
  }
  for (const [i, event] of trace.traffic.entries())
    if (outside(event.wallTime)) return `traffic[${i}].wallTime`;
  for (const [i, event] of trace.inbox.entries()) {
    const at = event.kind === 'asked' ? event.request.receivedAt : event.at;
    if (outside(at)) return `inbox[${i}]`;
  }
  return undefined;
}

export type ParseTraceResult =
  { ok: true; trace: Trace; warnings: string[] } | { ok: false; errors: string[] };

const MAX_REPORTED_ISSUES = 20;

/** `tasks[3].entries[0].kind` from zod's path. */
function pathText(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || '(the file)';
}

/** One line per problem, a readable number of them; the value itself is never quoted back whole. */
function describeIssues(issues: ReadonlyArray<z.core.$ZodIssue>): string[] {
  const lines = issues.slice(0, MAX_REPORTED_ISSUES).map((i) => `${pathText(i.path)}: ${i.message}`);
  if (issues.length > MAX_REPORTED_ISSUES)
    lines.push(`… and ${issues.length - MAX_REPORTED_ISSUES} more problems`);
  return lines;
}

/** Format and version first, so a file that is not a trace (or a newer one) gets one clear sentence. */
function checkHeader(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return 'not a trace: expected a JSON object';
  const { format, version } = json as Record<string, unknown>;
  if (format !== TRACE_FORMAT)
    return `not a Taskscope trace: "format" is ${typeof format === 'string' ? `"${format.slice(0, 60)}"` : 'missing'}, expected "${TRACE_FORMAT}"`;
  if (typeof version !== 'number')
    return `trace version missing: this Taskscope reads version ${TRACE_VERSION}`;
  if (version > TRACE_VERSION)
    return `trace version ${version} is newer than this Taskscope reads (${TRACE_VERSION}): update Taskscope to open it`;
  if (version !== TRACE_VERSION)
    return `trace version ${version} is not supported: this Taskscope reads version ${TRACE_VERSION}`;
  return undefined;
}

/** Validates an untrusted trace (already parsed from JSON) and returns it typed, or says what is wrong. */
export function parseTrace(json: unknown): ParseTraceResult {
  const headerError = checkHeader(json);
  if (headerError) return { ok: false, errors: [headerError] };
  const parsed = traceSchema.safeParse(json);
  if (!parsed.success) return { ok: false, errors: describeIssues(parsed.error.issues) };
  const trace: Trace = parsed.data;
  const out: string[] = [];

  if (!(trace.endedAt >= trace.startedAt))
    return { ok: false, errors: ['endedAt: the recording ends before it starts'] };
  if (trace.endedAt - trace.startedAt > MAX_TRACE_SPAN_MS)
    return {
      ok: false,
      errors: [
        `endedAt: the recording spans more than ${MAX_TRACE_SPAN_MS / 86_400_000} days; Taskscope replays up to that`,
      ],
    };
  const stray = timeOutsideSpan(trace);
  if (stray)
    return {
      ok: false,
      errors: [`${stray}: a time more than a minute outside the recording's startedAt…endedAt`],
    };

  const seen = new Set<string>();
  for (const task of trace.tasks) {
    if (seen.has(task.taskId))
      return { ok: false, errors: [`tasks: task ${task.taskId.slice(0, 80)} appears more than once`] };
    seen.add(task.taskId);
  }

  let cut = 0;
  trace.traffic = trace.traffic.map((read) => {
    const event = { ...read, bytes: trafficBytes(read) };
    const limited = limitJson(event.message, TRAFFIC_BODY_LIMITS);
    if (!limited.cut) return event;
    cut++;
    return { ...event, message: limited.value };
  });
  if (cut > 0)
    out.push(`${cut} traffic message bodies were nested too deep or too large to show whole; they are cut`);

  const known = Object.keys(traceSchema.shape);
  const extra = Object.keys(json as object).filter((k) => !known.includes(k));
  if (extra.length > 0)
    out.push(`ignored fields this Taskscope does not know: ${extra.slice(0, 10).join(', ').slice(0, 300)}`);
  return { ok: true, trace, warnings: out };
}

/** Reads a trace file's text: refused past MAX_TRACE_BYTES before JSON.parse sees it. */
export function parseTraceText(textContent: string): ParseTraceResult {
  // Length in UTF-16 units is at most the byte count in UTF-8 for ASCII and never more than 3× under it.
  if (textContent.length > MAX_TRACE_BYTES)
    return { ok: false, errors: [`the file is larger than ${MAX_TRACE_BYTES / 1024 / 1024} MB`] };
  let json: unknown;
  try {
    json = JSON.parse(textContent);
  } catch (error) {
    return {
      ok: false,
      errors: [`not JSON: ${error instanceof Error ? error.message.slice(0, 200) : 'parse error'}`],
    };
  }
  return parseTrace(json);
}
