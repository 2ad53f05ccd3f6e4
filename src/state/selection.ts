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

/** What the main pane shows. A task selection is mirrored in ?task= so it can be shared and reloaded. */
export const useSelection = create<SelectionState>()((set) => ({
  selection: { kind: 'none' },
  select: (selection) => {
    set({ selection });
    const url = new URL(window.location.href);
    if (selection.kind === 'task') url.searchParams.set('task', selection.taskId);
    else url.searchParams.delete('task');
    window.history.replaceState(null, '', url);
  },
}));

export function initialSelection(search = window.location.search): Selection {
  const taskId = new URLSearchParams(search).get('task');
  return taskId ? { kind: 'task', taskId } : { kind: 'none' };
}
