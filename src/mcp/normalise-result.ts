import { CallToolResultV1Schema } from '@modelcontextprotocol/ext-tasks/core/v1';
import { STATUS_SET, isObject, limitJson, quote } from './json';
import { RELATED_TASK_META, schemaIssuePaths } from './protocol-rules';
import type { Normalised, TaskResultSnapshot, TaskStatus, Warning } from './types';

/** How deep and how large a result Taskscope keeps and shows. */
export const MAX_RESULT_DEPTH = 64;
export const MAX_RESULT_NODES = 200_000;

export interface NormaliseResultContext {
  expectedTaskId?: string;
}

/**
 * Reads a tasks/result answer: the 2025-11-25 plain result (a CallToolResult with related-task _meta) or the
 * user documents' `{taskId, status, result}` envelope, whose result may be null for a failed task.
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
    if (payload !== null && !isObject(payload)) {
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
    if (result && ('content' in result || 'isError' in result)) {
      const check = CallToolResultV1Schema.safeParse(result);
      if (!check.success) {
        const fields = schemaIssuePaths(check.error.issues).slice(0, 5).join(', ');
        warnings.push({ code: 'bad-result', message: `does not match CallToolResult at: ${fields}` });
      }
    }
    const isError = result?.isError === true || envelopeStatus === 'failed';
    return { value: { result, envelopeStatus, isError, shape: isEnvelope ? 'envelope' : 'plain' }, warnings };
  } catch (error) {
    warnings.push({ code: 'not-an-object', message: `unreadable result: ${String(error)}` });
    return { value: { result: null, isError: false, shape: 'plain' }, warnings };
  }
}
