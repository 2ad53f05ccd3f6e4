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

export const useRunDrafts = create<{ drafts: Record<string, RunDraft> }>()(() => ({ drafts: {} }));

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
