import { useQuery } from '@tanstack/react-query';
import { MousePointerClick } from 'lucide-react';
import { useConnection } from '../state/connection';
import { useReplay } from '../state/replay';
import { toolsQuery } from '../tools/queries';
import { RunToolForm } from '../tools/RunToolForm';
import { TaskDetail } from '../tasks/views/TaskDetail';
import { Waterfall } from '../tasks/views/Waterfall';
import { InboxView } from '../inbox/InboxView';
import { EmptyState } from '../ui/Panel';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { useSelection } from '../state/selection';

function ToolPane({ name }: { name: string }) {
  const { id, support, status } = useConnection();
  const tools = useQuery({ ...toolsQuery(id), enabled: status === 'connected' });
  const tool = tools.data?.tools.find((t) => t.name === name);
  if (!tool || !support)
    return (
      <EmptyState title={`No tool named ${name}`}>It may have gone with the last connection.</EmptyState>
    );
  // Keyed by tool and connection so the form starts afresh for each.
  return <RunToolForm key={`${id}:${name}`} tool={tool} support={support} />;
}

export function MainPane() {
  const selection = useSelection((s) => s.selection);
  // A new selection starts with a fresh boundary: one broken task must not keep the pane broken.
  return (
    <ErrorBoundary key={JSON.stringify(selection)} label="This view">
      <SelectedPane />
    </ErrorBoundary>
  );
}

function SelectedPane() {
  const selection = useSelection((s) => s.selection);
  const server = useConnection((s) => s.server);
  const replaying = useReplay((s) => s.connectionId !== undefined);
  if (selection.kind === 'tool') return <ToolPane name={selection.name} />;
  if (selection.kind === 'task') return <TaskDetail taskId={selection.taskId} />;
  if (selection.kind === 'inbox') return <InboxView />;
  if (selection.kind === 'overview') return <Waterfall />;
  const name = server ? (server.title ?? server.name) : undefined;
  if (replaying)
    return (
      <EmptyState icon={<MousePointerClick size={24} />} title={`Replay of ${name ?? 'a recorded receiver'}`}>
        Pick a task on the left to see its timeline as it was recorded.
      </EmptyState>
    );
  return (
    <EmptyState icon={<MousePointerClick size={24} />} title={name ? `Connected to ${name}` : 'Taskscope'}>
      Pick a tool on the left to run it as a task, or a task to see its timeline.
    </EmptyState>
  );
}
