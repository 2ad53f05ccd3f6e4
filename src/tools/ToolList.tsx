import { useRef, useState, type KeyboardEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ListTodo, Search, Wrench } from 'lucide-react';
import { useConnection } from '../state/connection-store';
import { useConnectionView, type ConnectionKind } from '../state/connection-view';
import { useSelection } from '../state/selection-store';
import { classifyError } from '../mcp';
import { focusRing } from '../ui/Button';
import { moveInItems } from '../ui/keymap';
import { useListNavigation } from '../ui/useKeymap';
import { EmptyState, ErrorNote, Panel } from '../ui/Panel';
import { toolsQuery } from './queries';
import { TaskSupportBadge } from './TaskSupportBadge';
import { matchesTool } from './tool-search';
import { runsAsTask, taskToolsFirst } from './tool-order';

/** Why there are no tools to list, as the connection's one state says it. */
const NO_TOOLS: Partial<Record<ConnectionKind, string>> = {
  connecting: 'Connecting: the tools come once the receiver answers.',
  reconnecting: 'Reconnecting: the tools come back with the session.',
  'server-exited': 'The server exited: Restart it to list its tools again.',
  'sign-in-needed': 'Sign in to list this receiver’s tools.',
  unreachable: 'The receiver does not answer: no tools to list.',
  refused: 'The receiver refused the connection: no tools to list.',
  observing: "An observed client's session: Taskscope only watches it, and runs nothing in it.",
};

export function ToolList() {
  const { id, status } = useConnection();
  const view = useConnectionView();
  const tools = useQuery({ ...toolsQuery(id), enabled: status === 'connected' && view.kind !== 'observing' });
  const selection = useSelection((s) => s.selection);
  const select = useSelection((s) => s.select);
  const [query, setQuery] = useState('');
  const searchRef = useRef<HTMLInputElement>(null);
  // Up from the first tool goes back to the search, where down came in from.
  const listRef = useListNavigation((from, step) => {
    const list = from.closest<HTMLElement>('[data-keynav]');
    if (list && moveInItems(list, from, step)) return true;
    if (step === 1 || !searchRef.current) return false;
    searchRef.current.focus();
    return true;
  });

  if (status !== 'connected' || view.kind === 'observing') {
    return (
      <Panel title="Tools">
        <p
          className="flex items-center gap-2 px-3 py-2 text-xs text-slate-600 dark:text-slate-300"
          data-testid="tools-unavailable"
        >
          <Wrench size={14} aria-hidden /> {NO_TOOLS[view.kind] ?? 'No receiver: connect to list its tools.'}
        </p>
      </Panel>
    );
  }
  if (tools.isPending) {
    return (
      <Panel title="Tools">
        <div className="space-y-2 p-3" aria-busy>
          {[0, 1, 2].map((i) => (
            <div key={i} className="h-6 animate-pulse rounded bg-slate-200 dark:bg-slate-800" />
          ))}
        </div>
      </Panel>
    );
  }
  if (tools.isError) {
    return (
      <Panel title="Tools">
        <div className="min-h-0 overflow-y-auto p-3">
          <ErrorNote title="tools/list failed">
            {classifyError(tools.error, { method: 'tools/list' }).message}
          </ErrorNote>
        </div>
      </Panel>
    );
  }
  const { tools: list, warnings } = tools.data;
  if (list.length === 0) {
    return (
      <Panel title="Tools">
        <EmptyState icon={<Wrench size={20} />} title="No tools">
          This receiver lists no tools.
        </EmptyState>
      </Panel>
    );
  }
  const shown = list.filter((tool) => matchesTool(tool, query));
  // Tools that run as tasks come first, under a heading of their own when some do not.
  const { tasks, plain } = taskToolsFirst(shown);
  const groups =
    tasks.length > 0 && plain.length > 0
      ? [
          { title: 'Run as tasks', tools: tasks },
          { title: 'Plain calls only', tools: plain },
        ]
      : [{ title: undefined, tools: [...tasks, ...plain] }];
  const onSearchKey = (event: KeyboardEvent<HTMLInputElement>) => {
    const list = event.currentTarget
      .closest('[data-tool-list-root]')
      ?.querySelector<HTMLElement>('[data-keynav]');
    if (event.key === 'ArrowDown' && list) {
      event.preventDefault();
      moveInItems(list, event.currentTarget, 1);
    } else if (event.key === 'Escape' && query !== '') {
      // Escape empties a search first; an empty one lets Escape go on to close what is open.
      event.preventDefault();
      setQuery('');
    }
  };
  return (
    <div className="flex min-h-0 flex-1 flex-col" data-tool-list-root>
      <Panel
        title="Tools"
        className="flex-1"
        wideActions
        actions={
          <div className="relative w-full max-w-56">
            <Search
              size={12}
              className="absolute top-1/2 left-2 -translate-y-1/2 text-slate-400"
              aria-hidden
            />
            <input
              ref={searchRef}
              type="search"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              onKeyDown={onSearchKey}
              placeholder={`Search ${list.length} tools`}
              aria-label="Search tools"
              spellCheck={false}
              data-testid="tool-search"
              className="w-full rounded bg-slate-100 py-1 pr-2 pl-6 text-xs ring-1 ring-slate-200 outline-none ring-inset focus:ring-2 focus:ring-sky-500 dark:bg-slate-900 dark:ring-slate-700"
            />
          </div>
        }
      >
        {query.trim() !== '' && (
          <p
            className="px-3 pt-1 text-[11px] text-slate-600 dark:text-slate-300"
            data-testid="tool-search-count"
            aria-live="polite"
          >
            {shown.length} of {list.length} tools
          </p>
        )}
        <div className="min-h-0 flex-1 overflow-y-auto">
          {shown.length === 0 ? (
            <p className="px-3 py-2 text-xs text-slate-500">No tool matches “{query.trim()}”.</p>
          ) : (
            <ul className="py-1" data-testid="tool-list" ref={listRef}>
              {groups.map(({ title, tools: group }) => [
                title && (
                  <li
                    key={`group ${title}`}
                    className="px-3 pt-1.5 pb-0.5 text-[11px] font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400"
                    data-testid="tool-group"
                  >
                    {title} ({group.length})
                  </li>
                ),
                ...group.map((tool) => {
                  const active = selection.kind === 'tool' && selection.name === tool.name;
                  return (
                    <li key={tool.name}>
                      <button
                        type="button"
                        onClick={() => select({ kind: 'tool', name: tool.name })}
                        title={tool.description}
                        aria-current={active ? 'true' : undefined}
                        data-keynav-item
                        className={`flex w-full items-center justify-between gap-2 px-3 py-1.5 text-left text-sm hover:bg-slate-100 focus-visible:ring-inset dark:hover:bg-slate-900 ${focusRing} ${active ? 'bg-sky-50 dark:bg-sky-950/40' : ''}`}
                        data-testid={`tool-${tool.name}`}
                      >
                        <span className="flex min-w-0 items-center gap-1.5">
                          {runsAsTask(tool) ? (
                            <ListTodo
                              size={12}
                              className="shrink-0 text-sky-600 dark:text-sky-400"
                              aria-hidden
                              data-testid="task-tool-marker"
                            />
                          ) : (
                            <span className="w-3 shrink-0" aria-hidden />
                          )}
                          <span className="min-w-0 truncate font-mono text-xs">{tool.name}</span>
                        </span>
                        <TaskSupportBadge support={tool.taskSupport} />
                      </button>
                    </li>
                  );
                }),
              ])}
            </ul>
          )}
          {warnings.length > 0 && (
            <ul className="px-3 pb-2 text-xs text-amber-700 dark:text-amber-400">
              {warnings.map((w, i) => (
                <li key={i}>⚠ {w.message}</li>
              ))}
            </ul>
          )}
        </div>
      </Panel>
    </div>
  );
}
