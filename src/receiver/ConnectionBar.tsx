import { useRef, useState, type FormEvent } from 'react';
import { Plug, Unplug, KeyRound, RotateCw } from 'lucide-react';
import { Button } from '../ui/Button';
import { usePopover } from '../ui/usePopover';
import { connect, disconnect } from './actions';
import { useConnection } from '../state/connection-store';
import { useConnectionView } from '../state/connection-view';
import { useNow } from '../state/clock';
import { useReplay } from '../state/replay-store';
import { useObserve } from '../state/observe-store';
import { useSelection } from '../state/selection-store';
import { formatClock } from '../format/time';
import { SavedReceivers } from './SavedReceivers';

/** While the engine retries: when the next attempt goes, counted down on the page's one clock. */
function RetryIn({ at, attempt }: { at: number; attempt?: number }) {
  const now = useNow();
  const seconds = Math.max(0, Math.ceil((at - now) / 1000));
  return (
    // On narrow windows the main pane's problem panel counts it down instead: the URL field keeps its room.
    <span className="text-slate-500 max-xl:hidden" data-testid="connection-retry">
      {seconds > 0 ? `retrying in ${seconds} s` : 'retrying…'}
      {attempt !== undefined && attempt > 1 ? ` (attempt ${attempt})` : ''}
    </span>
  );
}

/** One header per line, `Name: value`; lines that are not headers are dropped rather than sent half-formed. */
export function parseHeaderLines(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^\s*([A-Za-z0-9!#$%&'*+.^_`|~-]+)\s*:\s*(.*?)\s*$/.exec(line);
    if (match?.[1] && match[2] !== undefined) headers[match[1]] = match[2];
  }
  return headers;
}

/** The headers menu also closes when the main pane shows something else. */
const onSelectionChange = (close: () => void) =>
  useSelection.subscribe((state, previous) => {
    if (state.selection !== previous.selection) close();
  });

export function ConnectionBar() {
  const { url, status, headers, degraded, error, retryAt, attempt, since, viaRelay } = useConnection();
  const [draft, setDraft] = useState<string | null>(null);
  const [headerText, setHeaderText] = useState<string | null>(null);
  const { open: headersOpen, setOpen: setHeadersOpen, menuRef, buttonRef } = usePopover(onSelectionChange);
  const savedRef = useRef<HTMLDivElement>(null);
  // A replay has no connection at all: the header must not say "Connected".
  const replaying = useReplay((s) => s.connectionId !== undefined);
  const observing = useObserve((s) => s.connectionId !== undefined);
  // During a replay the field offers the live receiver to go back to, not the recording's.
  const live = useReplay((s) => (s.connectionId !== undefined ? s.live : undefined));
  // One derivation for the header, the receiver card and the main pane (connection-view.ts).
  const look = useConnectionView();
  const value = draft ?? live?.url ?? url;
  const headerValue =
    headerText ??
    Object.entries(live?.headers ?? headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDraft(null);
    void connect(value, parseHeaderLines(headerValue));
  };

  return (
    <form onSubmit={submit} className="relative flex min-w-0 flex-1 items-center gap-1.5">
      <span
        className="flex shrink-0 items-center gap-1.5 text-xs whitespace-nowrap text-slate-600 dark:text-slate-300"
        data-testid="connection-status"
        data-status={look.kind}
        title={
          degraded
            ? `${degraded.failures} requests failed in a row since ${formatClock(degraded.since)}: ${degraded.error.message}`
            : error && status !== 'connected'
              ? `${error.message}${since ? ` (since ${formatClock(since)})` : ''}`
              : undefined
        }
      >
        <span className={`h-2 w-2 rounded-full ${look.dot}`} aria-hidden />
        {look.label}
        {(status === 'unreachable' || status === 'session-lost') && retryAt !== undefined && (
          <RetryIn at={retryAt} attempt={attempt} />
        )}
        {viaRelay && (
          <span
            className="rounded bg-slate-100 px-1 text-[10px] text-slate-600 dark:bg-slate-800 dark:text-slate-300"
            title="Requests go through Taskscope's local relay, because this receiver does not allow the page's origin"
            data-testid="via-relay"
          >
            via relay
          </span>
        )}
        {status === 'connected' && degraded && (
          <span
            className="max-w-64 truncate text-amber-700 max-xl:max-w-28 dark:text-amber-400"
            data-testid="connection-problem"
          >
            {degraded.error.message}
          </span>
        )}
      </span>
      <label className="sr-only" htmlFor="server-url">
        Receiver URL
      </label>
      <input
        id="server-url"
        value={value}
        onChange={(e) => setDraft(e.target.value)}
        spellCheck={false}
        placeholder="http://127.0.0.1:3001/mcp"
        // The URL keeps room to be read (at least 240 px): the header's secondary buttons give way first.
        className="min-w-60 flex-1 rounded-md bg-slate-100 px-2 py-1 font-mono text-xs ring-1 ring-slate-200 outline-none ring-inset focus:ring-2 focus:ring-sky-500 dark:bg-slate-900 dark:ring-slate-700"
        data-testid="server-url"
      />
      <div className="relative">
        <Button
          ref={buttonRef}
          variant="ghost"
          onClick={() => setHeadersOpen((s) => !s)}
          title="Request headers (e.g. Authorization)"
          aria-label={`Request headers${Object.keys(headers).length > 0 ? ` (${Object.keys(headers).length})` : ''}`}
          aria-expanded={headersOpen}
          aria-controls={headersOpen ? 'headers-menu' : undefined}
          data-testid="headers-button"
        >
          <KeyRound size={14} />
          {Object.keys(headers).length > 0 && <span className="text-xs">{Object.keys(headers).length}</span>}
        </Button>
        {headersOpen && (
          // Anchored under its own button and opening leftwards, it stays clear of the right-hand edge of the
          // main pane, where a task's "Cancel task" sits.
          <div
            ref={menuRef}
            id="headers-menu"
            data-testid="headers-menu"
            className="absolute top-full right-0 z-30 mt-2 w-96 max-w-[calc(100vw-1.5rem)] rounded-md border border-slate-200 bg-white p-3 shadow-lg dark:border-slate-700 dark:bg-slate-900"
          >
            <label className="text-xs font-medium text-slate-600 dark:text-slate-300" htmlFor="headers">
              Headers sent on every request, one <code>Name: value</code> per line
            </label>
            <textarea
              // Opened to be typed in: the field takes focus, and Escape hands it back to the button.
              autoFocus
              id="headers"
              rows={4}
              value={headerValue}
              onChange={(e) => setHeaderText(e.target.value)}
              spellCheck={false}
              placeholder="Authorization: Bearer …"
              className="mt-1 w-full rounded bg-slate-50 p-2 font-mono text-xs ring-1 ring-slate-200 outline-none ring-inset focus:ring-2 focus:ring-sky-500 dark:bg-slate-950 dark:ring-slate-700"
            />
            <p className="mt-1 text-xs text-slate-500">Applied on the next connect.</p>
          </div>
        )}
      </div>
      <div ref={savedRef} className="contents">
        <SavedReceivers
          currentUrl={live?.url ?? url}
          currentHeaders={live?.headers ?? headers}
          onPick={(picked, pickedHeaders) => {
            setDraft(null);
            setHeaderText(null);
            void connect(picked, pickedHeaders);
          }}
        />
      </div>
      {replaying || observing ? (
        <Button
          type="submit"
          variant="primary"
          title={`Leave the ${replaying ? 'replay' : 'observed session'} and connect to this receiver`}
        >
          <Plug size={14} /> Connect
        </Button>
      ) : status !== 'idle' && status !== 'error' && status !== 'closed' ? (
        <>
          <Button
            type="submit"
            variant="outline"
            title="Connect again to the URL in the field (a new session)"
          >
            <RotateCw size={14} aria-hidden /> Reconnect
          </Button>
          <Button
            variant="ghost"
            onClick={() => void disconnect()}
            title="End the session with the receiver (DELETE) and stop polling"
            data-testid="disconnect"
          >
            <Unplug size={14} aria-hidden /> Disconnect
          </Button>
        </>
      ) : (
        <Button type="submit" variant="primary">
          <Plug size={14} /> Connect
        </Button>
      )}
    </form>
  );
}
