/**
 * The report card's rule catalogue: each rule with the strength the spec itself gives it and the sentence that
 * says so, per protocol generation. Quotes are from the MCP specification 2025-11-25, Tasks
 * (docs/specification/2025-11-25/basic/utilities/tasks.mdx) and the Tasks extension 2026-07-28
 * (modelcontextprotocol/ext-tasks, specification/2026-07-28/tasks.md). A rule with no link for a generation
 * does not apply to it and is left off that generation's card.
 */
import type { Era } from '../mcp';
import type { RuleDef, RuleId, Strength } from './report-types';

const SPEC_2025 = 'https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks';
const SPEC_2026 = 'https://modelcontextprotocol.github.io/ext-tasks/specification/2026-07-28/tasks.html';
const s25 = (anchor: string) => `${SPEC_2025}#${anchor}`;
const s26 = (anchor: string) => `${SPEC_2026}#${anchor}`;
const AUTH_SPEC = 'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization';
/** The authorization spec is the same text for both generations (2026-07-28 keeps it). */
const auth = (anchor: string) => ({
  '2025-11-25': `${AUTH_SPEC}#${anchor}`,
  '2026-07-28': `${AUTH_SPEC}#${anchor}`,
});
const both = (text: string) => ({ '2025-11-25': text, '2026-07-28': text });

export const RULES: readonly RuleDef[] = [
  {
    id: 'poll-interval-present',
    title: 'pollInterval given while a task runs',
    // 2025: "Receivers **MAY** include a `pollInterval` value (in milliseconds) in `tasks/get` responses to
    // suggest polling intervals."  2026: `pollIntervalMs?: number` is optional; "Clients **SHOULD** respect
    // the `pollIntervalMs` provided in responses" (a client duty).
    strength: 'MAY',
    spec: { '2025-11-25': s25('ttl-and-resource-management'), '2026-07-28': s26('task-polling') },
    judgedBy: 'passive',
    quote: {
      '2025-11-25':
        'Receivers MAY include a pollInterval value (in milliseconds) in tasks/get responses to suggest polling intervals.',
      '2026-07-28':
        'Clients SHOULD respect the pollIntervalMs provided in responses when determining polling frequency.',
    },
  },
  {
    id: 'poll-interval-stable',
    title: 'pollInterval stable enough to follow',
    // No keyword asks for a steady interval; 2026 says outright "The `pollIntervalMs` **MAY** change over the
    // lifetime of a task." A jumpy or absurd interval is worth knowing, never a fault.
    strength: 'MAY',
    spec: { '2025-11-25': s25('ttl-and-resource-management'), '2026-07-28': s26('task-polling') },
    judgedBy: 'passive',
    quote: {
      '2025-11-25':
        'Receivers MAY include a pollInterval value (in milliseconds) in tasks/get responses to suggest polling intervals.',
      '2026-07-28': 'The pollIntervalMs MAY change over the lifetime of a task.',
    },
  },
  {
    id: 'ttl-present',
    title: 'ttl in every tasks/get answer',
    // 2025: "Receivers **MUST** include the actual `ttl` duration (or `null` for unlimited) in `tasks/get`
    // responses."  2026: `ttlMs: number | null;` is a required member of Task (no `?`), "null for unlimited".
    strength: 'MUST',
    spec: { '2025-11-25': s25('ttl-and-resource-management'), '2026-07-28': s26('tasks') },
    judgedBy: 'passive',
    quote: {
      '2025-11-25':
        'Receivers MUST include the actual ttl duration (or null for unlimited) in tasks/get responses.',
      '2026-07-28':
        'ttlMs: number | null — a required member of Task: "Time-to-live duration from creation in integer milliseconds, null for unlimited."',
    },
  },
  {
    id: 'ttl-not-purged-early',
    title: 'Not purged before its ttl',
    // 2025: deletion is allowed only once the ttl has elapsed: "After a task's `ttl` lifetime has elapsed,
    // receivers **MAY** delete the task and its results, regardless of the task status." A task gone before
    // then had a ttl that was not "the actual `ttl` duration", which the receiver **MUST** include.
    // 2026: "servers **MAY** mark a task as `failed` at any point after the TTL elapses, and subsequently
    // delete it at any time. The value of `ttlMs` **MAY** change" — no keyword forbids an earlier discard.
    strength: 'MUST',
    eraStrength: { '2026-07-28': 'MAY' },
    spec: { '2025-11-25': s25('ttl-and-resource-management'), '2026-07-28': s26('task-polling') },
    judgedBy: 'passive',
    quote: {
      '2025-11-25':
        "Receivers MUST include the actual ttl duration … After a task's ttl lifetime has elapsed, receivers MAY delete the task and its results.",
      '2026-07-28':
        'Servers MAY mark a task as failed at any point after the TTL elapses, and subsequently delete it at any time.',
    },
  },
  {
    id: 'ttl-not-kept-beyond',
    title: 'Cleaned up once its ttl is over',
    // 2025, Resource Management: "Receivers **SHOULD**: … Clean up expired tasks promptly to free resources".
    strength: 'SHOULD',
    spec: { '2025-11-25': s25('resource-management') },
    judgedBy: 'passive',
    quote: { '2025-11-25': 'Receivers SHOULD: … Clean up expired tasks promptly to free resources.' },
  },
  {
    id: 'status-transitions',
    title: 'Only legal status transitions',
    // 2025: "Receivers **MUST** only transition tasks through the following valid paths: … Tasks with a
    // `completed`, `failed`, or `cancelled` status are in a terminal state and **MUST NOT** transition to
    // any other status", and "Tasks **MUST** begin in the `working` status when created."
    // 2026 gives the lifecycle only as its state diagram, with no keyword: judged, but as a warning.
    strength: 'MUST',
    eraStrength: { '2026-07-28': 'SHOULD' },
    spec: { '2025-11-25': s25('task-status-lifecycle'), '2026-07-28': s26('task-status') },
    judgedBy: 'passive',
    quote: {
      '2025-11-25':
        'Tasks with a completed, failed, or cancelled status are in a terminal state and MUST NOT transition to any other status.',
      '2026-07-28': 'Task Status State Diagram: working → input_required ⇄ working → terminal (no keyword).',
    },
  },
  {
    id: 'created-at-fixed',
    title: 'createdAt never moves',
    // 2025: "Receivers **MUST** include a `createdAt` … timestamp in all task responses to indicate when the
    // task was created." A createdAt that changes cannot indicate when the task was created.
    // 2026: `createdAt: string` "ISO 8601 timestamp when the task was created", required, no keyword.
    strength: 'MUST',
    eraStrength: { '2026-07-28': 'SHOULD' },
    spec: { '2025-11-25': s25('ttl-and-resource-management'), '2026-07-28': s26('tasks') },
    judgedBy: 'passive',
    quote: {
      '2025-11-25':
        'Receivers MUST include a createdAt ISO 8601-formatted timestamp in all task responses to indicate when the task was created.',
      '2026-07-28': 'createdAt: ISO 8601 timestamp when the task was created (no keyword).',
    },
  },
  {
    id: 'last-updated-monotonic',
    title: 'lastUpdatedAt never goes backwards',
    // 2025: "Receivers **MUST** include a `lastUpdatedAt` … timestamp in all task responses to indicate when
    // the task was last updated." One earlier than a value already given cannot be the last update.
    strength: 'MUST',
    eraStrength: { '2026-07-28': 'SHOULD' },
    spec: { '2025-11-25': s25('ttl-and-resource-management'), '2026-07-28': s26('tasks') },
    judgedBy: 'passive',
    quote: {
      '2025-11-25':
        'Receivers MUST include a lastUpdatedAt ISO 8601-formatted timestamp in all task responses to indicate when the task was last updated.',
      '2026-07-28': 'lastUpdatedAt: ISO 8601 timestamp when the task was last updated (no keyword).',
    },
  },
  {
    id: 'timestamps-not-future',
    title: 'Timestamps not in the future',
    // The same sentence as last-updated-monotonic: an update cannot have happened after the answer was sent.
    // Judged past the receiver's estimated clock offset, so a receiver whose clock is simply off passes.
    strength: 'MUST',
    eraStrength: { '2026-07-28': 'SHOULD' },
    spec: { '2025-11-25': s25('ttl-and-resource-management'), '2026-07-28': s26('tasks') },
    judgedBy: 'passive',
    quote: {
      '2025-11-25':
        'Receivers MUST include a lastUpdatedAt ISO 8601-formatted timestamp in all task responses to indicate when the task was last updated.',
      '2026-07-28': 'lastUpdatedAt: ISO 8601 timestamp when the task was last updated (no keyword).',
    },
  },
  {
    id: 'result-after-terminal',
    title: 'Result only once the task has ended',
    // 2025: "When a receiver receives a `tasks/result` request for a task in any other non-terminal status
    // (`working` or `input_required`), it **MUST** block the response until the task reaches a terminal
    // status."  2026 (no tasks/result): "If the status is `completed`, the server **MUST** return a `Task`
    // object with status `completed` and a `result` field containing the final result of the task."
    strength: 'MUST',
    spec: { '2025-11-25': s25('result-retrieval'), '2026-07-28': s26('response') },
    judgedBy: 'both',
    quote: {
      '2025-11-25':
        'When a receiver receives a tasks/result request for a task in any other non-terminal status (working or input_required), it MUST block the response until the task reaches a terminal status.',
      '2026-07-28':
        'If the status is completed, the server MUST return a Task object with status completed and a result field containing the final result of the task.',
    },
  },
  {
    id: 'result-related-meta',
    title: 'Result names its task in _meta',
    // 2025: "The `tasks/result` operation **MUST** include this metadata in its response, as the result
    // structure itself does not contain the task ID." 2026 inlines the result in tasks/get: nothing to name.
    strength: 'MUST',
    spec: { '2025-11-25': s25('related-task-metadata') },
    judgedBy: 'passive',
    quote: {
      '2025-11-25':
        'The tasks/result operation MUST include this metadata in its response, as the result structure itself does not contain the task ID.',
    },
  },
  {
    id: 'failed-result-explains',
    title: 'A failed task says why',
    // 2025: "The `tasks/get` response **SHOULD** include a `statusMessage` field with diagnostic information
    // about the failure."  2026: the same SHOULD, "and **MUST** include the `error` field with the JSON-RPC
    // error."
    strength: 'SHOULD',
    eraStrength: { '2026-07-28': 'MUST' },
    spec: { '2025-11-25': s25('task-execution-errors'), '2026-07-28': s26('task-execution-errors') },
    judgedBy: 'passive',
    quote: {
      '2025-11-25':
        'The tasks/get response SHOULD include a statusMessage field with diagnostic information about the failure.',
      '2026-07-28':
        'The tasks/get response SHOULD include a statusMessage field with diagnostic information about the failure, and MUST include the error field with the JSON-RPC error.',
    },
  },
  {
    id: 'pushes-consistent',
    title: 'Status pushes agree with polls',
    // A push reports the task's status ("This notification includes the full task state"); a push the next
    // poll contradicts moved a terminal task, which "**MUST NOT** transition to any other status".
    // 2026: "Each notification carries a complete `DetailedTask` for the current status, identical to what
    // `tasks/get` would have returned at that moment." (no keyword)
    strength: 'MUST',
    eraStrength: { '2026-07-28': 'SHOULD' },
    spec: { '2025-11-25': s25('task-status-lifecycle'), '2026-07-28': s26('task-status-notifications') },
    judgedBy: 'passive',
    quote: {
      '2025-11-25':
        'Tasks with a completed, failed, or cancelled status are in a terminal state and MUST NOT transition to any other status.',
      '2026-07-28':
        'Each notification carries a complete DetailedTask for the current status, identical to what tasks/get would have returned at that moment.',
    },
  },
  {
    id: 'pushes-sent',
    title: 'Status pushes sent',
    // 2025: "Receivers **MAY** send `notifications/tasks/status` notifications when a task's status changes."
    // 2026: "Servers **MAY** push status updates via `notifications/tasks` notifications".
    strength: 'MAY',
    spec: { '2025-11-25': s25('task-notifications'), '2026-07-28': s26('task-status-notifications') },
    judgedBy: 'passive',
    quote: {
      '2025-11-25':
        "Receivers MAY send notifications/tasks/status notifications when a task's status changes.",
      '2026-07-28':
        'Servers MAY push status updates via notifications/tasks notifications in addition to servicing client polls.',
    },
  },
  {
    id: 'unknown-task-error',
    title: '-32602 for an unknown or expired task',
    // 2025: "Receivers **MUST** return standard JSON-RPC errors for the following protocol error cases: Invalid
    // or nonexistent `taskId` in `tasks/get`, `tasks/result`, or `tasks/cancel`: `-32602` (Invalid params)".
    // 2026: "Servers **MUST** return this error for `tasks/get`."
    strength: 'MUST',
    spec: { '2025-11-25': s25('protocol-errors'), '2026-07-28': s26('protocol-errors') },
    judgedBy: 'both',
    quote: {
      '2025-11-25':
        'Receivers MUST return standard JSON-RPC errors for the following protocol error cases: Invalid or nonexistent taskId in tasks/get, tasks/result, or tasks/cancel: -32602 (Invalid params).',
      '2026-07-28':
        'Invalid or nonexistent taskId: -32602 (Invalid params). Servers MUST return this error for tasks/get.',
    },
  },
  {
    id: 'capability-absent-error',
    title: '-32601 for a task call the tool forbids',
    // 2025: "If `execution.taskSupport` is not present or `\"forbidden\"`, clients **MUST NOT** attempt to
    // invoke the tool as a task. Servers **SHOULD** return a `-32601` (Method not found) error if a client
    // attempts to do so."
    strength: 'SHOULD',
    spec: { '2025-11-25': s25('tool-level-negotiation') },
    judgedBy: 'both',
    quote: {
      '2025-11-25':
        'If execution.taskSupport is not present or "forbidden", … Servers SHOULD return a -32601 (Method not found) error if a client attempts to do so.',
    },
  },
  {
    id: 'undeclared-method-refused',
    title: '-32601 for tasks/list or tasks/cancel not declared',
    // 2025: "`capabilities.tasks.list` controls if the `tasks/list` operation is supported by the party." (and
    // the same of tasks.cancel). No keyword says how an undeclared one is answered; JSON-RPC 2.0 names -32601
    // "Method not found: the method does not exist / is not available", also without a keyword. Answering it
    // anyway breaks nothing: worth knowing (MAY), never a fault.
    strength: 'MAY',
    spec: { '2025-11-25': s25('capability-negotiation') },
    judgedBy: 'both',
    quote: {
      '2025-11-25':
        'capabilities.tasks.list controls if the tasks/list operation is supported by the party. (No keyword asks for -32601 when it is not; JSON-RPC 2.0 calls -32601 "the method does not exist / is not available".)',
    },
  },
  {
    id: 'rate-limit-retry-after',
    title: 'Rate limits say when to retry',
    // The spec asks for rate limiting ("receivers **SHOULD** implement rate limiting on task operations";
    // 2026: "Servers **MAY** rate-limit clients polling more frequently than the recorded `pollIntervalMs`")
    // but no keyword asks for a retry hint; HTTP 429 "MAY include a Retry-After header" (RFC 6585).
    strength: 'MAY',
    spec: { '2025-11-25': s25('task-isolation-and-access-control'), '2026-07-28': s26('task-polling') },
    judgedBy: 'passive',
    quote: {
      '2025-11-25':
        'Receivers SHOULD implement rate limiting on task operations to prevent denial-of-service and enumeration attacks. (A 429 MAY include a Retry-After header, RFC 6585.)',
      '2026-07-28':
        'Servers MAY rate-limit clients polling more frequently than the recorded pollIntervalMs.',
    },
  },
  {
    id: 'capability-tasks-list',
    title: 'tasks/list works as declared',
    // 2025: "`capabilities.tasks.list` controls if the `tasks/list` operation is supported by the party." and
    // "If a task is retrievable via `tasks/get` for a requestor, it **MUST** be retrievable via `tasks/list`
    // for that requestor." A declared tasks/list that refuses lists nothing retrievable. 2026 has no tasks/list.
    strength: 'MUST',
    spec: { '2025-11-25': s25('task-listing') },
    judgedBy: 'both',
    quote: {
      '2025-11-25':
        'If a task is retrievable via tasks/get for a requestor, it MUST be retrievable via tasks/list for that requestor.',
    },
  },
  {
    id: 'capability-tasks-cancel',
    title: 'tasks/cancel works as declared',
    // 2025: "Upon receiving a valid cancellation request, receivers **SHOULD** attempt to stop the task
    // execution and **MUST** transition the task to `cancelled` status before sending the response."
    // 2026: "On success, the server **MUST** acknowledge the request with an empty result."
    strength: 'MUST',
    spec: { '2025-11-25': s25('task-cancellation'), '2026-07-28': s26('task-cancellation') },
    judgedBy: 'both',
    quote: {
      '2025-11-25':
        'Upon receiving a valid cancellation request, receivers SHOULD attempt to stop the task execution and MUST transition the task to cancelled status before sending the response.',
      '2026-07-28': 'On success, the server MUST acknowledge the request with an empty result.',
    },
  },
  {
    id: 'tool-task-support',
    title: 'Tools behave as their taskSupport says',
    // 2025: "If `execution.taskSupport` is `\"required\"`, clients **MUST** invoke the tool as a task. Servers
    // **MUST** return a `-32601` (Method not found) error if a client does not attempt to do so." and
    // "Receivers that accept a task-augmented request **MUST** return a `CreateTaskResult` as the response."
    strength: 'MUST',
    spec: { '2025-11-25': s25('tool-level-negotiation') },
    judgedBy: 'both',
    quote: {
      '2025-11-25':
        'If execution.taskSupport is "required", … Servers MUST return a -32601 (Method not found) error if a client does not attempt to do so.',
    },
  },
  {
    id: 'terminal-cancel-refused',
    title: 'Cancel of an ended task refused with -32602',
    // 2025: "Receivers **MUST** reject cancellation requests for tasks already in a terminal status
    // (`completed`, `failed`, or `cancelled`) with error code `-32602` (Invalid params)."
    strength: 'MUST',
    spec: { '2025-11-25': s25('task-cancellation') },
    judgedBy: 'both',
    quote: {
      '2025-11-25':
        'Receivers MUST reject cancellation requests for tasks already in a terminal status (completed, failed, or cancelled) with error code -32602 (Invalid params).',
    },
  },
  {
    id: 'task-only-for-tools-call',
    title: 'Only tools/call answered with a task',
    // 2025: "The set of capabilities in `capabilities.tasks.requests` is exhaustive. If a request type is not
    // present, it does not support task-augmentation." and "Receivers that do not declare the task capability
    // for a request type **MUST** process requests of that type normally, ignoring any task-augmentation
    // metadata if present." A server's `tasks.requests` has `tools.call` alone (schema.ts), so no other request
    // type can be declared: a task answer to one breaks that MUST.
    // 2026: "A client that receives `CreateTaskResult` in response to an unsupported request type **MUST**
    // interpret this as an invalid response to the request.", `tools/call` being the one supported method.
    strength: 'MUST',
    spec: { '2025-11-25': s25('task-support-and-handling'), '2026-07-28': s26('capability-negotiation') },
    judgedBy: 'passive',
    quote: {
      '2025-11-25':
        'The set of capabilities in capabilities.tasks.requests is exhaustive. If a request type is not present, it does not support task-augmentation. … Receivers that do not declare the task capability for a request type MUST process requests of that type normally, ignoring any task-augmentation metadata if present.',
      '2026-07-28':
        'A client that receives CreateTaskResult in response to an unsupported request type MUST interpret this as an invalid response to the request. (The following methods currently support task-augmented execution: tools/call.)',
    },
  },
  {
    id: 'requested-ttl-honoured',
    title: 'Requested ttl honoured',
    // 2025: "Receivers **MAY** override the requested `ttl` duration."
    strength: 'MAY',
    spec: { '2025-11-25': s25('ttl-and-resource-management') },
    judgedBy: 'both',
    quote: { '2025-11-25': 'Receivers MAY override the requested ttl duration.' },
  },
  {
    id: 'list-paging',
    title: 'tasks/list pages correctly',
    // 2025: "Receivers **MUST** include a `nextCursor` in the response if more tasks are available." and
    // "Invalid or nonexistent cursor in `tasks/list`: `-32602` (Invalid params)" under the MUST of Protocol
    // Errors.
    strength: 'MUST',
    spec: { '2025-11-25': s25('task-listing') },
    judgedBy: 'active',
    quote: {
      '2025-11-25': 'Receivers MUST include a nextCursor in the response if more tasks are available.',
    },
  },
  {
    id: 'auth-challenge-names-metadata',
    title: 'A 401 names its resource metadata',
    // MCP authorization, Protected Resource Metadata Discovery: servers MUST implement one of the two
    // mechanisms; the header is the one a client sees first (RFC 9728 §5.1).
    strength: 'SHOULD',
    spec: auth('protected-resource-metadata-discovery-requirements'),
    judgedBy: 'passive',
    quote: both(
      'MCP servers MUST implement one of the following discovery mechanisms … WWW-Authenticate Header: include the resource metadata URL in the WWW-Authenticate header under resource_metadata when returning 401 Unauthorized responses (RFC 9728 §5.1).',
    ),
  },
  {
    id: 'auth-resource-matches',
    title: 'The resource metadata names this receiver',
    strength: 'MUST',
    spec: auth('authorization-server-location'),
    judgedBy: 'passive',
    quote: both(
      "The resource value returned MUST be identical to the protected resource's resource identifier value into which the well-known URI path suffix was inserted (RFC 9728 §3.3).",
    ),
  },
  {
    id: 'auth-s256-offered',
    title: 'The authorization server offers PKCE S256',
    strength: 'MUST',
    spec: auth('authorization-code-protection'),
    judgedBy: 'passive',
    quote: both(
      'MCP clients MUST use the S256 code challenge method when technically capable … If code_challenge_methods_supported is absent, the authorization server does not support PKCE and MCP clients MUST refuse to proceed.',
    ),
  },
  {
    id: 'auth-issuer-matches',
    title: 'The issuer matches',
    strength: 'MUST',
    spec: auth('authorization-server-metadata-discovery'),
    judgedBy: 'passive',
    quote: both(
      "The issuer value returned MUST be identical to the authorization server's issuer identifier value into which the well-known URI string was inserted (RFC 8414 §3.3); an iss parameter in the authorization response MUST match it (RFC 9207 §2.4).",
    ),
  },
];

export const RULE_BY_ID: ReadonlyMap<RuleId, RuleDef> = new Map(RULES.map((r) => [r.id, r]));

export function ruleDef(id: RuleId): RuleDef {
  const def = RULE_BY_ID.get(id);
  if (!def) throw new Error(`No rule ${id}`);
  return def;
}

/** The rule's strength in the receiver's generation. */
export function strengthFor(def: RuleDef, era: Era): Strength {
  return def.eraStrength?.[era] ?? def.strength;
}

/** Whether the rule is part of that generation's spec (it has a link there). */
export function appliesTo(def: RuleDef, era: Era): boolean {
  return def.spec[era] !== undefined;
}

/** The rules of one generation, in catalogue order. */
export function rulesFor(era: Era): RuleDef[] {
  return RULES.filter((r) => appliesTo(r, era));
}
