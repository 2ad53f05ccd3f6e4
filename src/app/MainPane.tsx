import { useQuery } from '@tanstack/react-query';
import { MousePointerClick } from 'lucide-react';
import { useConnection } from '../connection/store';
import { toolsQuery } from '../tools/queries';
import { TaskSupportBadge } from '../tools/TaskSupportBadge';
import { EmptyState } from '../ui/Panel';
import { useSelection } from './selection';

function ToolOverview({ name }: { name: string }) {
  const { id } = useConnection();
  const tools = useQuery(toolsQuery(id));
  const tool = tools.data?.tools.find((t) => t.name === name);
  if (!tool)
    return (
      <EmptyState title={`No tool named ${name}`}>It may have gone with the last connection.</EmptyState>
    );
  return (
    <div className="space-y-3 p-4">
      <div className="flex items-center gap-2">
        <h1 className="font-mono text-lg font-semibold">{tool.name}</h1>
        <TaskSupportBadge support={tool.taskSupport} />
      </div>
      {tool.description && (
        <p className="text-sm whitespace-pre-wrap text-slate-600 dark:text-slate-300">{tool.description}</p>
      )}
    </div>
  );
}

export function MainPane() {
  const selection = useSelection((s) => s.selection);
  const server = useConnection((s) => s.server);
  if (selection.kind === 'tool') return <ToolOverview name={selection.name} />;
  return (
    <EmptyState
      icon={<MousePointerClick size={24} />}
      title={server ? `Connected to ${server.title ?? server.name}` : 'Taskscope'}
    >
      {server?.instructions && <p className="mb-2 whitespace-pre-wrap">{server.instructions}</p>}
      Pick a tool on the left to run it as a task, or a task to see its timeline.
    </EmptyState>
  );
}
