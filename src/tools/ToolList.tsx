import { useQuery } from '@tanstack/react-query';
import { Wrench } from 'lucide-react';
import { useConnection } from '../state/connection';
import { useSelection } from '../state/selection';
import { classifyError } from '../mcp';
import { EmptyState, ErrorNote } from '../ui/Panel';
import { toolsQuery } from './queries';
import { TaskSupportBadge } from './TaskSupportBadge';

export function ToolList() {
  const { id, status } = useConnection();
  const tools = useQuery({ ...toolsQuery(id), enabled: status === 'connected' });
  const selection = useSelection((s) => s.selection);
  const select = useSelection((s) => s.select);

  if (status !== 'connected') {
    return (
      <EmptyState icon={<Wrench size={20} />} title="No receiver">
        Connect to list its tools.
      </EmptyState>
    );
  }
  if (tools.isPending) {
    return (
      <div className="space-y-2 p-3" aria-busy>
        {[0, 1, 2].map((i) => (
          <div key={i} className="h-6 animate-pulse rounded bg-slate-200 dark:bg-slate-800" />
        ))}
      </div>
    );
  }
  if (tools.isError) {
    return (
      <div className="p-3">
        <ErrorNote title="tools/list failed">
          {classifyError(tools.error, { method: 'tools/list' }).message}
        </ErrorNote>
      </div>
    );
  }
  const { tools: list, warnings } = tools.data;
  if (list.length === 0) {
    return (
      <EmptyState icon={<Wrench size={20} />} title="No tools">
        This receiver lists no tools.
      </EmptyState>
    );
  }
  return (
    <div className="min-h-0 overflow-y-auto">
      <ul className="py-1" data-testid="tool-list">
        {list.map((tool) => {
          const active = selection.kind === 'tool' && selection.name === tool.name;
          return (
            <li key={tool.name}>
              <button
                type="button"
                onClick={() => select({ kind: 'tool', name: tool.name })}
                title={tool.description}
                className={`flex w-full items-center justify-between gap-2 px-3 py-1.5 text-left text-sm hover:bg-slate-100 dark:hover:bg-slate-900 ${active ? 'bg-sky-50 dark:bg-sky-950/40' : ''}`}
                data-testid={`tool-${tool.name}`}
              >
                <span className="truncate font-mono text-xs">{tool.name}</span>
                <TaskSupportBadge support={tool.taskSupport} />
              </button>
            </li>
          );
        })}
      </ul>
      {warnings.length > 0 && (
        <ul className="px-3 pb-2 text-xs text-amber-700 dark:text-amber-400">
          {warnings.map((w, i) => (
            <li key={i}>⚠ {w.message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
