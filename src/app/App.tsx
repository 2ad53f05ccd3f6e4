import { ConnectionBar } from '../connection/ConnectionBar';
import { ServerCard } from '../connection/ServerCard';
import { ToolList } from '../tools/ToolList';
import { TaskList } from '../tasks/views/TaskList';
import { TrafficDrawer } from '../traffic/TrafficDrawer';
import { Panel } from '../ui/Panel';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { MainPane } from './MainPane';
import { ThemeToggle } from './ThemeToggle';
import { InboxButton } from '../inbox/InboxView';
import { useSelection } from '../state/selection';
import { useKeymap } from '../ui/useKeymap';
import { focusRing } from '../ui/Button';
import { ShortcutsOverlay } from './ShortcutsOverlay';
import { ReportCardButton, ReportCardDialog } from '../report/ReportCard';
import { ExportMenu } from '../trace/ExportMenu';
import { OpenTraceButton, ReplayBar, TraceDropZone } from '../trace/ReplayBar';
import { StdioConsole } from '../stdio/StdioConsole';

export function App() {
  useKeymap();
  return (
    <div className="flex h-full flex-col">
      <header className="flex items-center gap-4 border-b border-slate-200 px-3 py-2 dark:border-slate-800">
        <a href="/" className={`flex items-center gap-2 rounded font-semibold tracking-tight ${focusRing}`}>
          <img src="/favicon.svg" alt="" className="h-5 w-5" />
          Taskscope
        </a>
        <ConnectionBar />
        <InboxButton onOpen={() => useSelection.getState().select({ kind: 'inbox' })} />
        <ReportCardButton />
        <ExportMenu />
        <OpenTraceButton />
        <ShortcutsOverlay />
        <ThemeToggle />
      </header>
      <ErrorBoundary label="The replay bar">
        <ReplayBar />
      </ErrorBoundary>
      <TraceDropZone />
      {/* Shrinks as the traffic drawer grows: what does not fit scrolls inside its panel, never under the drawer. */}
      <div className="flex min-h-0 flex-1 overflow-hidden">
        <aside className="flex min-h-0 w-80 shrink-0 flex-col overflow-y-auto border-r border-slate-200 dark:border-slate-800">
          {/* Receiver and tools scroll within their share, so the task list always keeps room for rows. */}
          <Panel title="Receiver" className="max-h-[30%] min-h-24 shrink-0">
            <div className="min-h-0 overflow-y-auto">
              <ErrorBoundary label="The receiver card">
                <ServerCard />
              </ErrorBoundary>
            </div>
          </Panel>
          {/* Only for a stdio server (taskscope --stdio): its stderr, pid, exit status and Restart. */}
          <StdioConsole />
          <Panel title="Tools" className="max-h-[30%] min-h-36 shrink-0">
            <ErrorBoundary label="The tool list">
              <ToolList />
            </ErrorBoundary>
          </Panel>
          <Panel title="Tasks" className="min-h-40 flex-1">
            <ErrorBoundary label="The task list">
              <TaskList />
            </ErrorBoundary>
          </Panel>
        </aside>
        <main className="min-w-0 flex-1 overflow-y-auto">
          <MainPane />
        </main>
      </div>
      <ErrorBoundary label="The traffic drawer">
        <TrafficDrawer />
      </ErrorBoundary>
      <ErrorBoundary label="The report card">
        <ReportCardDialog />
      </ErrorBoundary>
    </div>
  );
}
