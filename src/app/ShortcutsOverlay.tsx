import { useState } from 'react';
import { Keyboard } from 'lucide-react';
import { Dialog } from '../ui/Dialog';
import { focusRing } from '../ui/Button';
import { useShortcut, useShortcutList } from '../ui/useKeymap';
import type { Shortcut } from '../ui/keymap';

/** The shortcuts the shell itself answers or handles generically; views add their own while mounted. */
function useShellShortcuts(openOverlay: () => void) {
  useShortcut({
    id: 'shell.help',
    keys: ['?'],
    description: 'Show these shortcuts',
    group: 'General',
    match: (event) => event.key === '?',
    run: openOverlay,
  });
  useShortcut({
    id: 'shell.search',
    keys: ['/'],
    description: 'Search tasks',
    group: 'General',
    // Only where there is a task search to go to; elsewhere the key is left alone.
    match: (event) =>
      event.key === '/' && document.querySelector('input[aria-label="Search tasks"]') !== null,
    run: () => {
      // The task list owns its search box; it is found by its accessible name, which the list keeps stable.
      const search = document.querySelector<HTMLInputElement>('input[aria-label="Search tasks"]');
      search?.focus();
      search?.select();
    },
  });
  useShortcut({
    id: 'shell.escape',
    keys: ['Esc'],
    description: 'Close the innermost menu, dialog or drawer',
    group: 'General',
  });
  useShortcut({
    id: 'shell.lists',
    keys: ['↑', '↓'],
    description: 'Move through the focused list (tools, tasks)',
    group: 'Lists',
  });
  useShortcut({
    id: 'shell.open',
    keys: ['Enter'],
    description: 'Open the focused tool or task',
    group: 'Lists',
  });
  useShortcut({
    id: 'shell.tab',
    keys: ['Tab', 'Shift Tab'],
    description: 'Move between controls',
    group: 'General',
  });
}

function groups(shortcuts: readonly Shortcut[]): [string, Shortcut[]][] {
  const byGroup = new Map<string, Shortcut[]>();
  for (const shortcut of shortcuts)
    byGroup.set(shortcut.group, [...(byGroup.get(shortcut.group) ?? []), shortcut]);
  return [...byGroup];
}

/** The `?` overlay and its header button: every shortcut the views have registered, by group. */
export function ShortcutsOverlay() {
  const [open, setOpen] = useState(false);
  useShellShortcuts(() => setOpen(true));
  const shortcuts = useShortcutList();
  return (
    <>
      <button
        type="button"
        onClick={() => setOpen(true)}
        title="Keyboard shortcuts (?)"
        aria-label="Keyboard shortcuts"
        data-testid="shortcuts-button"
        className={`rounded-md p-1.5 text-slate-500 hover:bg-slate-100 dark:text-slate-400 dark:hover:bg-slate-800 ${focusRing}`}
      >
        <Keyboard size={16} />
      </button>
      {open && (
        <Dialog title="Keyboard shortcuts" onClose={() => setOpen(false)} testId="shortcuts-overlay">
          <div className="w-[28rem] max-w-full space-y-4 text-sm">
            {groups(shortcuts).map(([group, list]) => (
              <section key={group}>
                <h3 className="mb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">{group}</h3>
                <dl className="grid grid-cols-[9rem_1fr] items-center gap-x-4 gap-y-1.5">
                  {list.map((shortcut) => (
                    <div key={shortcut.id} className="contents" data-testid="shortcut">
                      <dt className="flex gap-1">
                        {shortcut.keys.map((key) => (
                          <kbd
                            key={key}
                            className="rounded border border-slate-300 bg-slate-50 px-1.5 py-0.5 font-mono text-xs dark:border-slate-700 dark:bg-slate-800"
                          >
                            {key}
                          </kbd>
                        ))}
                      </dt>
                      <dd className="text-slate-700 dark:text-slate-300">{shortcut.description}</dd>
                    </div>
                  ))}
                </dl>
              </section>
            ))}
          </div>
        </Dialog>
      )}
    </>
  );
}
