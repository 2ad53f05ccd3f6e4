import { ToolV1Schema } from '@modelcontextprotocol/ext-tasks/core/v1';
import type { Era, ServerTaskSupport, ToolInfo, Warning } from './types';
import { TASKS_EXTENSION } from './protocol-rules';
import { cutText, isObject, limitJson } from './json';
import { schemaIssuePaths } from './protocol-rules';

/** An empty object switches a feature on; anything else (absent, null, false) leaves it off. */
export function serverTaskSupport(capabilities: Record<string, unknown> | undefined): ServerTaskSupport {
  const tasks = capabilities?.tasks;
  const extensions = isObject(capabilities?.extensions) ? capabilities.extensions : {};
  // A dual-era receiver on its 2025-11-25 side: tasks exist, but only over 2026-07-28.
  if (!isObject(tasks))
    return { list: false, cancel: false, toolCall: false, onlyIn2026: isObject(extensions[TASKS_EXTENSION]) };
  const requests = isObject(tasks.requests) ? tasks.requests : {};
  const tools = isObject(requests.tools) ? requests.tools : {};
  return { list: isObject(tasks.list), cancel: isObject(tasks.cancel), toolCall: isObject(tools.call) };
}

/**
 * 2026-07-28: tasks are the extension `io.modelcontextprotocol/tasks`, declared by an (empty) object under
 * `capabilities.extensions`; there is no tasks/list, and tasks/cancel always exists with it.
 */
export function serverTaskSupport2026(capabilities: Record<string, unknown> | undefined): ServerTaskSupport {
  const extensions = isObject(capabilities?.extensions) ? capabilities.extensions : {};
  const on = isObject(extensions[TASKS_EXTENSION]);
  return { list: false, cancel: on, toolCall: on, era: '2026-07-28' };
}

/** Reads one tool from tools/list; a tool with an off shape is kept (with warnings) when it has a name. */
export function normaliseTool(
  raw: unknown,
  options: { era?: Era } = {},
): { tool: ToolInfo | null; warnings: Warning[] } {
  const warnings: Warning[] = [];
  if (!isObject(raw) || typeof raw.name !== 'string' || raw.name === '') {
    return {
      tool: null,
      warnings: [{ code: 'not-an-object', message: 'a tools/list entry has no name; skipped' }],
    };
  }
  const check = ToolV1Schema.safeParse(raw);
  if (!check.success && options.era !== '2026-07-28') {
    const fields = schemaIssuePaths(check.error.issues).slice(0, 5).join(', ');
    warnings.push({
      code: 'schema',
      message: `tool ${raw.name} does not match the Tool schema at: ${fields}`,
    });
  }
  const execution = isObject(raw.execution) ? raw.execution : {};
  const support = execution.taskSupport;
  // 2026-07-28 has no per-tool taskSupport: a call that declares the extension may come back as a task, and the
  // receiver decides. A dual-era server may still list the 2025 field; "forbidden" there speaks to 2025 clients.
  const taskSupport: ToolInfo['taskSupport'] =
    support === 'optional' || support === 'required'
      ? support
      : options.era === '2026-07-28'
        ? 'receiver'
        : 'forbidden';
  if (support !== undefined && support !== 'forbidden' && support !== taskSupport) {
    warnings.push({
      code: 'schema',
      message: `tool ${raw.name}: unknown taskSupport ${JSON.stringify(support)}, read as ${taskSupport === 'receiver' ? 'the receiver deciding' : taskSupport}`,
    });
  }
  return {
    tool: {
      name: raw.name,
      title: typeof raw.title === 'string' ? raw.title : undefined,
      description: typeof raw.description === 'string' ? cutText(raw.description, 10_000) : undefined,
      inputSchema: isObject(raw.inputSchema)
        ? (limitJson(raw.inputSchema, { maxDepth: 32, maxNodes: 50_000 }).value as Record<string, unknown>)
        : { type: 'object' },
      taskSupport,
      ...(isObject(raw.annotations) && raw.annotations.readOnlyHint === true
        ? { readOnly: true as const }
        : {}),
    },
    warnings,
  };
}

/** Why a tool cannot run as a task here, or null when it can. */
export function whyNotTask(tool: ToolInfo, support: ServerTaskSupport): string | null {
  if (!support.toolCall && support.onlyIn2026)
    return 'This receiver runs tasks only over 2026-07-28 (it declares the tasks extension): set the protocol to auto or 2026-07-28 on the receiver card.';
  if (!support.toolCall)
    return support.era === '2026-07-28'
      ? 'The receiver does not declare the tasks extension (io.modelcontextprotocol/tasks).'
      : 'The receiver does not offer tools/call as a task (no tasks.requests.tools.call capability).';
  if (tool.taskSupport === 'forbidden')
    return `${tool.name} does not run as a task (taskSupport: forbidden).`;
  return null;
}
