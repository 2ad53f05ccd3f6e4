import { useRef } from 'react';
import { ReceiverSection } from '../receiver/ReceiverSection';
import { AuthSection } from '../receiver/AuthSection';
import { ToolList } from '../tools/ToolList';
import { TaskList } from '../tasks/views/TaskList';
import { TrafficDrawer } from '../traffic/TrafficDrawer';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { Splitter } from '../ui/Splitter';
import { TOOLS_MIN, useLayout } from '../state/layout-store';
import { MainPane } from './MainPane';
import { MainScroller } from './MainScroller';
import { AppHeader } from './AppHeader';
import { useKeymap } from '../ui/useKeymap';
import { ReportCardDialog } from '../report/ReportCardEntry';
import { ReplayBar, TraceDropZone } from '../trace-files/ReplayBar';
import { StdioConsole } from '../stdio/StdioConsole';

/** The task list keeps at least this much of the sidebar, however tall the tools' split is made. */
const TASKS_MIN = '18rem';
/**
 * Until the split is dragged, the task list asks for room for eight rows (its toolbar included) and the
 * tools take their own height in what is left: the tools give way first, down to TOOLS_MIN, and any height
 * beyond both goes to the task list.
 */
const TASKS_ROOM = '31rem';
const TOOLS_YIELD = 100;

/**
 * The sidebar: the receiver as one line (unfolded on demand), the tools in a split of their own that
 * scrolls, and the task list in all the height that is left. Its width and the tools' split are dragged
 * (or moved with the arrow keys) and remembered.
 */
function Sidebar() {
  const width = useLayout((s) => s.sidebarWidth);
  const setWidth = useLayout((s) => s.setSidebarWidth);
  const toolsHeight = useLayout((s) => s.toolsHeight);
  const setToolsHeight = useLayout((s) => s.setToolsHeight);
  const asideRef = useRef<HTMLElement>(null);
  const toolsRef = useRef<HTMLDivElement>(null);
  return (
    <>
      <aside
        ref={asideRef}
        className="flex min-h-0 shrink-0 flex-col"
        style={{ width }}
        aria-label="Receiver, tools and tasks"
      >
        <ReceiverSection />
        {/* Only once the receiver asked for a sign-in (a 401 with a Bearer challenge). */}
        <AuthSection />
        {/* Only for a stdio server (taskscope --stdio): its stderr, pid, exit status and Restart. */}
        <StdioConsole />
        <div
          ref={toolsRef}
          className="flex min-h-0 flex-col"
          style={{
            ...(toolsHeight === undefined
              ? { flex: `0 ${TOOLS_YIELD} auto` }
              : { height: toolsHeight, flexShrink: 0 }),
            minHeight: TOOLS_MIN,
            maxHeight: `calc(100% - ${TASKS_MIN})`,
          }}
          data-testid="tools-split"
        >
          <ErrorBoundary label="The tool list">
            <ToolList />
          </ErrorBoundary>
        </div>
        <Splitter
          axis="y"
          size={() => toolsRef.current?.getBoundingClientRect().height ?? TOOLS_MIN}
          setSize={(height) => {
            // No taller than its split may be drawn: a stored height past it would make the handle feel dead.
            const aside = asideRef.current?.getBoundingClientRect().height ?? Infinity;
            setToolsHeight(Math.min(height, aside - 18 * 16));
          }}
          label="Resize the tools and the task list"
          testId="tools-resize"
        />
        <div className="flex min-h-0 flex-col" style={{ flex: `1 1 ${TASKS_ROOM}` }}>
          <ErrorBoundary label="The task list">
            <TaskList />
          </ErrorBoundary>
        </div>
      </aside>
      <Splitter axis="x" size={width} setSize={setWidth} label="Resize the sidebar" testId="sidebar-resize" />
    </>
  );
}

export function App() {
  useKeymap();
  return (
    <div className="flex h-full flex-col">
      <AppHeader />
      <ErrorBoundary label="The replay bar">
        <ReplayBar />
      </ErrorBoundary>
      <TraceDropZone />
      <div className="flex min-h-0 flex-1 overflow-hidden">
        <Sidebar />
        {/* The traffic drawer takes its height from the main pane alone: the task list keeps all of its. */}
        <div className="flex min-h-0 min-w-0 flex-1 flex-col">
          <MainScroller>
            <MainPane />
          </MainScroller>
          <ErrorBoundary label="The traffic drawer">
            <TrafficDrawer />
          </ErrorBoundary>
        </div>
      </div>
      <ErrorBoundary label="The report card">
        <ReportCardDialog />
      </ErrorBoundary>
    </div>
  );
}
