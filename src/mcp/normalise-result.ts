import { CallToolResultV1Schema } from '@modelcontextprotocol/ext-tasks/core/v1';
import { STATUS_SET, cutText, isObject, limitJson, quote } from './json';
import { RELATED_TASK_META } from './protocol-rules';
import type { Normalised, TaskResultSnapshot, TaskStatus, Warning } from './types';

/** How deep and how large a result Taskscope keeps and shows. */
export const MAX_RESULT_DEPTH = 64;
export const MAX_RESULT_NODES = 200_000;

/** How much of a shape mismatch a warning names: the first problem, cut to this. */
const MAX_PROBLEM_CHARS = 160;

/**
 * What makes a result no CallToolResult (a `content` array of content blocks, an optional `structuredContent`
 * object, an optional boolean `isError`), in a few words; undefined when it is one. The schema is ext-tasks'
 * v1 CallToolResult, which requires `content` as the spec's schema does: the SDK's own defaults a missing
 * `content` to [], so a resources/read answer (`contents`) would pass it.
 */
function callToolResultProblem(result: Record<string, unknown>): string | undefined {
  if (!('content' in result))
    return 'contents' in result
      ? 'no content array (contents is what resources/read answers: only tools/call may run as a task)'
      : 'no content array';
  const check = CallToolResultV1Schema.safeParse(result);
  if (check.success) return undefined;
  const [first, ...rest] = check.error.issues;
  if (!first) return 'does not match';
  const path = first.path.map(String).join('.') || '(root)';
  const what =
    first.code === 'invalid_union' && first.path[0] === 'content'
      ? `${path} is not a content block`
      : `${path}: ${first.message.replace(/^Invalid input: /, '')}`;
  const more = rest.length > 0 ? ` (and ${rest.length} more)` : '';
  return cutText(`${what}${more}`, MAX_PROBLEM_CHARS);
}

export interface NormaliseResultContext {
  expectedTaskId?: string;
}

/**
 * Reads a tool's result (a tasks/result answer, a 2026-07-28 task's inline result, a plain call's answer): the
 * 2025-11-25 plain result (a CallToolResult with related-task _meta) or the user documents' `{taskId, status,
 * result}` envelope, whose result may be null for a failed task. One that is no CallToolResult is a warning.
 */
export function normaliseResult(
  raw: unknown,
  ctx: NormaliseResultContext = {},
): Normalised<TaskResultSnapshot> {
  const warnings: Warning[] = [];
  try {
    if (!isObject(raw)) {
      return {
        value: { result: null, isError: false, shape: 'plain' },
        warnings: [{ code: 'not-an-object', message: `expected a result object, got ${quote(raw)}` }],
      };
    }
    // A CallToolResult never has a task status of its own; an object that does is the user documents' envelope.
    const isEnvelope = 'status' in raw && ('result' in raw || 'taskId' in raw) && !('content' in raw);
    let payload: unknown = isEnvelope ? raw.result : raw;
    let envelopeStatus: TaskStatus | undefined;
    if (isEnvelope) {
      if (typeof raw.status === 'string' && STATUS_SET.has(raw.status))
        envelopeStatus = raw.status as TaskStatus;
      else
        warnings.push({
          code: 'unknown-status',
          message: `result envelope status ${quote(raw.status)} is not a task status`,
        });
      if (typeof raw.taskId === 'string' && ctx.expectedTaskId && raw.taskId !== ctx.expectedTaskId) {
        warnings.push({
          code: 'task-id-mismatch',
          message: `asked for ${ctx.expectedTaskId} but the result is for ${raw.taskId}`,
        });
      }
    } else {
      const related = isObject(raw._meta) ? raw._meta[RELATED_TASK_META] : undefined;
      const relatedId = isObject(related) ? related.taskId : undefined;
      if (typeof relatedId === 'string' && ctx.expectedTaskId && relatedId !== ctx.expectedTaskId) {
        warnings.push({
          code: 'task-id-mismatch',
          message: `asked for ${ctx.expectedTaskId} but the result is for ${relatedId}`,
        });
      }
    }
    if (payload === undefined) payload = null;
    const shownRaw = payload !== null && !isObject(payload);
    if (shownRaw) {
      warnings.push({ code: 'bad-result', message: `result ${quote(payload)} is not an object; shown raw` });
      payload = { value: payload };
    }
    // Nested past what any reader here can follow (tree views, structured clone to the page): cut, and said.
    const limited = limitJson(payload, { maxDepth: MAX_RESULT_DEPTH, maxNodes: MAX_RESULT_NODES });
    if (limited.cut) {
      warnings.push({
        code: 'bad-result',
        message: `result nested deeper than ${MAX_RESULT_DEPTH} levels or over ${MAX_RESULT_NODES} values; shown cut`,
      });
    }
    const result = limited.value as Record<string, unknown> | null;
    // Only tools/call may run as a task (both generations), so every result read here is a CallToolResult
    // or broken. One shown raw or cut is said to be odd already: judging its shape too would only add noise.
    const problem = result && !shownRaw && !limited.cut ? callToolResultProblem(result) : undefined;
    if (problem) warnings.push({ code: 'schema', message: `not a CallToolResult: ${problem}` });
    const isError = result?.isError === true || envelopeStatus === 'failed';
    return { value: { result, envelopeStatus, isError, shape: isEnvelope ? 'envelope' : 'plain' }, warnings };
  } catch (error) {
    warnings.push({ code: 'not-an-object', message: `unreadable result: ${String(error)}` });
    return { value: { result: null, isError: false, shape: 'plain' }, warnings };
  }
}
