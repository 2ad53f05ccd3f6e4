import { create } from 'zustand';

export type Selection =
  | { kind: 'none' }
  | { kind: 'inbox' }
  | { kind: 'overview' }
  | { kind: 'tool'; name: string }
  /** `at`: open the task at that moment (wall-clock ms), its observations scrolled there (the report card). */
  | { kind: 'task'; taskId: string; at?: number };

interface SelectionState {
  selection: Selection;
  select: (selection: Selection) => void;
}

/** What the main pane shows. A task selection is mirrored in ?task= (app/sync-address.ts) to be shared and reloaded. */
export const useSelection = create<SelectionState>()((set) => ({
  selection: { kind: 'none' },
  select: (selection) => set({ selection }),
}));

export function initialSelection(search = window.location.search): Selection {
  const taskId = new URLSearchParams(search).get('task');
  return taskId ? { kind: 'task', taskId } : { kind: 'none' };
}
