import { create } from 'zustand';
import type { TaskCall } from '../tracker/task-store';
import type { FormValues } from '../ui/schema-form';

/**
 * What was typed into a tool's run form, kept per receiver and tool while the page is open, so going to a
 * task and back finds the form as it was left. "Run again" puts a task's call here for the form to read.
 */
export interface RunDraft {
  values?: FormValues;
  ttl: string;
  /** A call to fill the form with: the form turns it into inputs, as only it knows the tool's fields. */
  call?: { args: Record<string, unknown>; fromTaskId: string };
}

export const useRunDrafts = create<{
  drafts: Record<string, RunDraft>;
  /** The arguments each tool was last run with (as a task, a plain call, or by the check), by draftKey. */
  lastArgs: Record<string, Record<string, unknown>>;
}>()(() => ({ drafts: {}, lastArgs: {} }));

export const draftKey = (receiverUrl: string, tool: string) => JSON.stringify([receiverUrl, tool]);

export function saveRunDraft(key: string, draft: RunDraft): void {
  useRunDrafts.setState((s) => ({ drafts: { ...s.drafts, [key]: draft } }));
}

/** "Run again": the call becomes the tool's draft, replacing what was typed there. */
export function draftFromCall(receiverUrl: string, taskId: string, call: TaskCall): void {
  saveRunDraft(draftKey(receiverUrl, call.tool), {
    ttl: call.ttl === undefined ? '' : String(call.ttl),
    call: { args: call.args, fromTaskId: taskId },
  });
}

/** Notes the arguments a tool was just run with on a receiver: the check's dialog offers them next. */
export function rememberRunArgs(receiverUrl: string, tool: string, args: Record<string, unknown>): void {
  useRunDrafts.setState((s) => ({ lastArgs: { ...s.lastArgs, [draftKey(receiverUrl, tool)]: args } }));
}

/** The arguments `tool` was last run with on this receiver while the page is open, if it was. */
export const lastRunArgs = (receiverUrl: string, tool: string): Record<string, unknown> | undefined =>
  useRunDrafts.getState().lastArgs[draftKey(receiverUrl, tool)];
