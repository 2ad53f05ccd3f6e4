/**
 * The client rules: what the task documents (../shared/seeds: tasks/get, tasks/result), the MCP specification
 * 2025-11-25 (Tasks) and the Tasks extension 2026-07-28 ask of the requestor, each with the strength its text
 * gives it. A client that follows them passes every rule; the verdict follows from the strength as on the
 * receiver's card (MUST broken → fail, SHOULD → warn, MAY → info).
 */
import type { Era } from '../mcp';
import type { Strength } from './report-types';

export type ClientRuleId =
  | 'client-poll-cadence'
  | 'client-stops-at-terminal'
  | 'client-discards-unknown-task'
  | 'client-result-after-terminal'
  | 'client-retry-after'
  | 'client-result-fetched'
  | 'client-result-promptly'
  | 'client-capability-respected'
  | 'client-tool-task-support'
  | 'client-extension-declared'
  | 'client-input-required-result'
  | 'client-mcp-name'
  | 'client-mcp-method'
  | 'client-protocol-version'
  | 'client-no-2025-task-methods'
  | 'client-task-param-ignored'
  | 'client-input-answered-once';

export interface ClientRuleDef {
  id: ClientRuleId;
  title: string;
  strength: Strength;
  /** Where a generation, or a receiver following the user documents, words the rule with another keyword. */
  strengthOn?: Partial<Record<Era | 'documents', Strength>>;
  /** The spec's address, or the user document, the rule comes from per generation; none: it does not apply. */
  source: Partial<Record<Era, string>>;
  quote: Partial<Record<Era, string>>;
}

const SPEC_2025 = 'https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks';
const SPEC_2026 = 'https://modelcontextprotocol.github.io/ext-tasks/specification/2026-07-28/tasks.html';
/** The user documents are not published at an address: the rule names the document and its section. */
const DOC_GET = 'user documents: tasks/get';
const DOC_RESULT = 'user documents: tasks/result';
const s25 = (anchor: string) => `${SPEC_2025}#${anchor}`;
const s26 = (anchor: string) => `${SPEC_2026}#${anchor}`;
const both = (text: string) => ({ '2025-11-25': text, '2026-07-28': text });

export const CLIENT_RULES: readonly ClientRuleDef[] = [
  {
    id: 'client-poll-cadence',
    title: 'Polls no sooner than the pollInterval',
    strength: 'SHOULD',
    source: { '2025-11-25': s25('task-polling'), '2026-07-28': s26('task-polling') },
    quote: {
      '2025-11-25':
        'Requestors SHOULD respect the pollInterval provided in responses when determining polling frequency.',
      '2026-07-28':
        'Clients SHOULD respect the pollIntervalMs provided in responses when determining polling frequency.',
    },
  },
  {
    id: 'client-stops-at-terminal',
    title: 'Stops polling at a terminal status',
    strength: 'SHOULD',
    source: both(DOC_GET),
    quote: both(
      'When status reaches a terminal value (completed, failed, or cancelled), callers should stop polling.',
    ),
  },
  {
    id: 'client-discards-unknown-task',
    title: 'Discards a task the receiver calls unknown or expired',
    strength: 'MUST',
    source: both(DOC_GET),
    quote: both(
      'It returns JSON-RPC error -32602 … callers must treat this as a non-retryable terminal condition and discard the taskId.',
    ),
  },
  {
    id: 'client-result-after-terminal',
    title: 'Asks for the result once the task is terminal',
    // Only judged where the receiver answers an early tasks/result -32602 (the documents); on the spec's
    // receivers tasks/result blocks until the task ends, and calling it early is allowed.
    strength: 'MUST',
    source: { '2025-11-25': DOC_RESULT },
    quote: {
      '2025-11-25':
        'Before calling it, the Requestor must confirm the task is in a terminal state … Calling tasks/result on a task that is still in working or input_required state will return a -32602 Invalid params error.',
    },
  },
  {
    id: 'client-retry-after',
    title: 'Waits as a rate limit asks',
    strength: 'SHOULD',
    source: both(DOC_GET),
    quote: both(
      'Polling faster than this hint risks triggering per-client rate limiting or receiving -32429 (Too Many Requests) errors.',
    ),
  },
  {
    id: 'client-result-fetched',
    title: 'Fetches a completed task’s result before its ttl runs out',
    strength: 'SHOULD',
    strengthOn: { documents: 'MUST' },
    source: { '2025-11-25': DOC_RESULT, '2026-07-28': s26('task-polling') },
    quote: {
      '2025-11-25':
        'Receivers are permitted to purge task records after the TTL … Fetch and persist the result as soon as you receive a completed notification.',
      '2026-07-28':
        'Servers MAY mark a task as failed at any point after the TTL elapses, and subsequently delete it at any time.',
    },
  },
  {
    id: 'client-result-promptly',
    title: 'Fetches the result as soon as it sees completed',
    strength: 'SHOULD',
    source: { '2025-11-25': DOC_GET },
    quote: {
      '2025-11-25':
        'If status is completed, immediately call tasks/result to retrieve the payload before the ttl window closes.',
    },
  },
  {
    id: 'client-capability-respected',
    title: 'Uses only what the receiver declared',
    strength: 'MUST',
    source: { '2025-11-25': s25('capabilities') },
    quote: {
      '2025-11-25':
        "If a server's capabilities do not include tasks.requests.tools.call, then clients MUST NOT attempt to use task augmentation on that server's tools.",
    },
  },
  {
    id: 'client-tool-task-support',
    title: 'Follows each tool’s taskSupport',
    strength: 'MUST',
    source: { '2025-11-25': s25('tool-level-negotiation') },
    quote: {
      '2025-11-25':
        'If execution.taskSupport is not present or "forbidden", clients MUST NOT attempt to invoke the tool as a task. If execution.taskSupport is "required", clients MUST invoke the tool as a task.',
    },
  },
  {
    id: 'client-extension-declared',
    title: 'Declares the tasks extension on its task requests',
    strength: 'MUST',
    source: { '2026-07-28': s26('error-handling') },
    quote: {
      '2026-07-28':
        'Servers MUST return this error for non-declaring clients issuing tasks/get, tasks/update, and tasks/cancel requests.',
    },
  },
  {
    id: 'client-input-required-result',
    title: 'Calls tasks/result when a task needs input',
    strength: 'SHOULD',
    source: { '2025-11-25': s25('input-required-status') },
    quote: {
      '2025-11-25':
        'When the requestor encounters the input_required status, it SHOULD preemptively call tasks/result.',
    },
  },
  {
    id: 'client-mcp-name',
    title: 'Mcp-Name names the task',
    strength: 'MUST',
    source: { '2026-07-28': s26('http-headers') },
    quote: {
      '2026-07-28':
        'When tasks/get, tasks/update, or tasks/cancel is sent over the Streamable HTTP transport, the client MUST set the Mcp-Name header to the value of params.taskId.',
    },
  },
  {
    id: 'client-mcp-method',
    title: 'Mcp-Method names the method',
    strength: 'MUST',
    source: { '2026-07-28': s26('http-headers') },
    quote: {
      '2026-07-28':
        'The Mcp-Method header is set to the JSON-RPC method name per standard header conventions.',
    },
  },
  {
    id: 'client-protocol-version',
    title: 'Every request names its protocol version and capabilities',
    strength: 'MUST',
    source: { '2026-07-28': s26('capability-negotiation') },
    quote: {
      '2026-07-28':
        'A server MUST NOT return CreateTaskResult to a client that did not include the extension capability on its request, regardless of prior declarations.',
    },
  },
  {
    id: 'client-no-2025-task-methods',
    title: 'No 2025-11-25 task methods on 2026-07-28',
    strength: 'MUST',
    source: { '2026-07-28': s26('cancelling-tasks') },
    quote: {
      '2026-07-28': 'The notifications/cancelled notification MUST NOT be used for task cancellation.',
    },
  },
  {
    id: 'client-task-param-ignored',
    title: 'No task parameter on tools/call',
    strength: 'MAY',
    source: { '2026-07-28': s26('creating-tasks') },
    quote: {
      '2026-07-28':
        'The server is the sole decider; clients do not signal task preference on the request itself.',
    },
  },
  {
    id: 'client-input-answered-once',
    title: 'Answers each input request once',
    strength: 'SHOULD',
    source: { '2026-07-28': s26('updating-tasks') },
    quote: {
      '2026-07-28': 'Clients SHOULD track inputRequests keys to avoid responding to requests more than once.',
    },
  },
];

export const CLIENT_RULE_BY_ID: ReadonlyMap<ClientRuleId, ClientRuleDef> = new Map(
  CLIENT_RULES.map((r) => [r.id, r]),
);

/** The rules that apply to a generation, in catalogue order. */
export function clientRulesFor(era: Era): ClientRuleDef[] {
  return CLIENT_RULES.filter((r) => r.source[era] !== undefined);
}

export function clientStrength(def: ClientRuleDef, era: Era, documentsFlavour: boolean): Strength {
  return (documentsFlavour ? def.strengthOn?.documents : undefined) ?? def.strengthOn?.[era] ?? def.strength;
}
