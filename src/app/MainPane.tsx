import { useQuery } from '@tanstack/react-query';
import { Eye, MousePointerClick, Unplug } from 'lucide-react';
import { useConnection } from '../state/connection-store';
import { useReplay } from '../state/replay-store';
import { toolsQuery } from '../tools/queries';
import { RunToolForm } from '../tools/RunToolForm';
import { TaskDetail } from '../tasks/views/TaskDetail';
import { Waterfall } from '../tasks/views/Waterfall';
import { InboxView } from '../inbox/InboxView';
import { EmptyState } from '../ui/Panel';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { DemoTraceLink } from '../ui/DemoTraceLink';
import { useSelection } from '../state/selection-store';
import { useTasks } from '../tasks/tasks-store';
import { ConnectionProblem } from '../receiver/ConnectionProblem';
import { useConnectionView } from '../state/connection-view';
import { RestartButton } from '../stdio/RestartButton';

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
  const replaying = useReplay((s) => s.connectionId !== undefined);
  // A new selection starts with a fresh boundary: one broken task must not keep the pane broken.
  return (
    <ErrorBoundary key={JSON.stringify(selection)} label="This view">
      <SelectedPane />
      {/* The recorded demo stays a click away once there is history (the empty task list offers it too). */}
      {selection.kind === 'none' && !replaying && (
        <p className="pb-6 text-center text-sm">
          <DemoTraceLink testId="demo-trace-welcome" />
        </p>
      )}
    </ErrorBoundary>
  );
}

function SelectedPane() {
  const selection = useSelection((s) => s.selection);
  const server = useConnection((s) => s.server);
  const url = useConnection((s) => s.url);
  const replaying = useReplay((s) => s.connectionId !== undefined);
  const tracked = useTasks((s) => selection.kind === 'task' && s.tasks.has(selection.taskId));
  // The header, the receiver card and this pane read one state (connection-view.ts).
  const view = useConnectionView();
  // With no working connection the reason is what the pane is about; a task seen before stays below it.
  if (view.problem)
    return (
      <div className="space-y-2">
        <div className="p-4 pb-0">
          <ConnectionProblem restart={<RestartButton />} />
        </div>
        {selection.kind === 'task' && tracked && <TaskDetail taskId={selection.taskId} />}
        {selection.kind === 'inbox' && <InboxView />}
        {selection.kind === 'overview' && <Waterfall />}
      </div>
    );
  if (selection.kind === 'tool') return <ToolPane name={selection.name} />;
  if (selection.kind === 'task') return <TaskDetail taskId={selection.taskId} />;
  if (selection.kind === 'inbox') return <InboxView />;
  if (selection.kind === 'overview') return <Waterfall />;
  const name = server ? (server.title ?? server.name) : undefined;
  if (view.kind === 'observing')
    return (
      <EmptyState icon={<Eye size={24} />} title={view.title}>
        Taskscope only watches this client&apos;s session through its proxy: it sends nothing in it. Pick a
        task on the left to see its timeline as the client&apos;s polls and their answers pass.
      </EmptyState>
    );
  if (replaying)
    return (
      <EmptyState icon={<MousePointerClick size={24} />} title={`Replay of ${name ?? 'a recorded receiver'}`}>
        Pick a task on the left to see its timeline as it was recorded.
      </EmptyState>
    );
  if (view.kind === 'closed' || view.kind === 'idle')
    return (
      <EmptyState icon={<Unplug size={24} />} title={name ? `Disconnected from ${name}` : 'Not connected'}>
        {url ? 'The session was ended. ' : ''}Connect to a receiver with its URL in the header; what was seen
        stays on the left.
      </EmptyState>
    );
  if (view.kind === 'connecting')
    return (
      <EmptyState
        icon={<MousePointerClick size={24} />}
        title={`Connecting to ${url || "the client's session observed through the proxy"}…`}
      />
    );
  return (
    <EmptyState icon={<MousePointerClick size={24} />} title={name ? `Connected to ${name}` : 'Taskscope'}>
      Pick a tool on the left to run it as a task, or a task to see its timeline.
    </EmptyState>
  );
}
