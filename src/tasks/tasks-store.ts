import { create } from 'zustand';
import { useStore } from 'zustand';
import type { ListStatus, PollingHealth } from '../engine/messages';
import type { FormValues } from '../ui/schema-form';
import { createTasksStore, type TaskCall, type TasksState } from '../tracker/task-store';

/**
 * The page's copy of the current connection's task records, filled only from the engine's batches (the
 * tracker itself runs in the engine's Worker). Selectors should pick one task, or ids and counts.
 */
export const tasksStore = createTasksStore();

export function useTasks<T>(selector: (state: TasksState) => T): T {
  return useStore(tasksStore, selector);
}

/** How the last tasks/list went, for the refresh button and its error line. */
export const useTaskListStatus = create<ListStatus>()(() => ({ loading: false }));

/** Whether polling keeps up with what the tasks ask (the browser caps how many requests a page sends). */
export const usePollingHealth = create<{ health?: PollingHealth }>()(() => ({}));

/** Forgets the previous connection's tasks on the page (a new connect, a disconnect). */
export function resetTaskRecords(): void {
  tasksStore.setState({
    tasks: new Map(),
    order: [],
    version: 0,
    clockOffsetMs: 0,
    clockSamples: 0,
    dialects: [],
    untrackedSeen: 0,
  });
  useTaskListStatus.setState({
    loading: false,
    lastSyncedAt: undefined,
    error: undefined,
    stopped: undefined,
  });
  usePollingHealth.setState({ health: undefined });
}

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
