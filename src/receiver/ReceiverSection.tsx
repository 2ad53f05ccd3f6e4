import { ChevronDown, ChevronRight } from 'lucide-react';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { focusRing } from '../ui/Button';
import { useConnection } from '../state/connection-store';
import { useConnectionView } from '../state/connection-view';
import { useLayout } from '../state/layout-store';
import { useReplay } from '../state/replay-store';
import { useObserve } from '../state/observe-store';
import { ReceiverNotes, ServerCard } from './ServerCard';
import { ObservedSessions } from './ObservedSessions';

/**
 * The receiver, as one line once connected (its name, version and protocol), unfolded on demand into its
 * card. A section of the sidebar of its own, so panels about the receiver (sign-in steps, a console) can
 * join it as sections beside it without another layout.
 */
export function ReceiverSection() {
  const open = useLayout((s) => s.receiverOpen);
  const setOpen = useLayout((s) => s.setReceiverOpen);
  const server = useConnection((s) => s.server);
  const view = useConnectionView();
  const era = useConnection((s) => s.server?.protocolVersion);
  const viaRelay = useConnection((s) => s.viaRelay);
  const replaying = useReplay((s) => s.connectionId !== undefined);
  const observing = useObserve((s) => s.connectionId !== undefined);
  return (
    <section
      aria-label="Receiver"
      className="shrink-0 border-b border-slate-200 dark:border-slate-800"
      data-testid="receiver-section"
    >
      <button
        type="button"
        onClick={() => setOpen(!open)}
        aria-expanded={open}
        aria-controls="receiver-details"
        title={open ? 'Fold the receiver card' : 'Show the receiver card: capabilities, session, history'}
        className={`flex w-full min-w-0 items-center gap-1.5 px-2 py-2 text-left text-sm hover:bg-slate-50 dark:hover:bg-slate-900 ${focusRing}`}
        data-testid="receiver-toggle"
      >
        {open ? (
          <ChevronDown size={14} className="shrink-0" aria-hidden />
        ) : (
          <ChevronRight size={14} className="shrink-0" aria-hidden />
        )}
        <span className="sr-only">Receiver: </span>
        {server ? (
          <>
            <span className="min-w-0 truncate font-semibold" data-testid="server-name" title={server.name}>
              {server.title ?? server.name}
            </span>
            <span className="shrink-0 text-xs text-slate-600 dark:text-slate-300">
              v{server.version}
              {era ? ` · ${era}` : ''}
              {replaying ? ' · replay' : observing ? ' · observed' : viaRelay ? ' · via relay' : ''}
            </span>
            {/* The receiver is known, but its connection may be gone: the card says so as the header does. */}
            {view.kind !== 'connected' && view.kind !== 'replay' && view.kind !== 'observing' && (
              <span className="shrink-0 text-xs font-medium" data-testid="receiver-state">
                · {view.label}
              </span>
            )}
          </>
        ) : (
          <span className="truncate text-slate-600 dark:text-slate-300" data-testid="receiver-state">
            {view.kind === 'idle' ? 'No receiver' : view.label}
          </span>
        )}
      </button>
      {/* Folded, the card stays in the page (hidden): what it says is still there for whoever looks it up. */}
      <div id="receiver-details" hidden={!open} className="max-h-[45vh] overflow-y-auto">
        <ErrorBoundary label="The receiver card">
          <ServerCard />
        </ErrorBoundary>
      </div>
      {/* Observing a client through the proxy: its sessions to pick from, shown folded or not. */}
      <ErrorBoundary label="The observed sessions">
        <ObservedSessions />
      </ErrorBoundary>
      <ReceiverNotes />
    </section>
  );
}
