import { ConnectionBar } from '../receiver/ConnectionBar';
import { InboxButton } from '../inbox/InboxView';
import { ReportCardButton } from '../report/ReportCardEntry';
import { ExportMenu } from '../trace-files/ExportMenu';
import { OpenTraceButton } from '../trace-files/ReplayBar';
import { useSelection } from '../state/selection-store';
import { focusRing, narrowLabel } from '../ui/Button';
import { ShortcutsOverlay } from './ShortcutsOverlay';
import { ThemeToggle } from './ThemeToggle';

/**
 * The receiver's URL and its connection first; then what reads the connection (inbox, report card) and
 * what leaves it (export, open a trace), whose words give way to their icons on narrow windows.
 */
export function AppHeader() {
  return (
    <header className="flex items-center gap-2 border-b border-slate-200 px-3 py-2 dark:border-slate-800">
      <a
        href="/"
        className={`flex shrink-0 items-center gap-2 rounded font-semibold tracking-tight ${focusRing}`}
        title="Taskscope: back to the demo receiver"
      >
        <img src="/favicon.svg" alt="" className="h-5 w-5" />
        <span className={narrowLabel}>Taskscope</span>
      </a>
      <ConnectionBar />
      <div className="flex shrink-0 items-center gap-1" role="group" aria-label="Inbox, report and traces">
        <InboxButton onOpen={() => useSelection.getState().select({ kind: 'inbox' })} />
        <ReportCardButton />
        <ExportMenu />
        <OpenTraceButton />
        <ShortcutsOverlay />
        <ThemeToggle />
      </div>
    </header>
  );
}
