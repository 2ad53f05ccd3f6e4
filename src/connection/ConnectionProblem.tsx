import { useState } from 'react';
import { CircleAlert, RotateCw } from 'lucide-react';
import { Button } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { useConnection, type ConnectionState } from '../state/connection';
import { useNow } from '../state/clock';
import { useReplay } from '../state/replay';
import { formatClock } from '../format/time';
import { connect } from './actions';
import { setRelay } from './saved-receivers';
import { EraSelect } from './EraSelect';

function problemTitle({ status, error }: Pick<ConnectionState, 'status' | 'error'>): string {
  if (status === 'unreachable') return 'Receiver unreachable';
  if (status === 'session-lost') return 'Session lost';
  if (error?.diagnosis === 'cors') return "The receiver does not allow this page's origin (CORS)";
  return 'Could not connect';
}

/** What the person can do about it, said in one line under the error. */
function nextStep({ status, error, viaRelay }: Pick<ConnectionState, 'status' | 'error' | 'viaRelay'>) {
  if (status === 'unreachable' || status === 'session-lost')
    return 'Taskscope tries again by itself while this page is open; what was seen stays on screen.';
  if (error?.diagnosis === 'cors' && !viaRelay)
    return 'The receiver answers, but its CORS settings do not allow this page. Taskscope can reach it through its own local server instead.';
  if (error?.kind === 'protocol')
    return 'Choose the protocol version to speak with this receiver, or check its URL.';
  return 'Check the URL in the header (its host, port and path), then connect again.';
}

/** The engine's next attempt, counted down on the page's one clock. */
function RetryIn({ at, attempt }: { at: number; attempt?: number }) {
  const now = useNow();
  const seconds = Math.max(0, Math.ceil((at - now) / 1000));
  return (
    <span data-testid="problem-retry">
      {seconds > 0 ? `Next try in ${seconds} s` : 'Trying again…'}
      {attempt !== undefined && attempt > 1 ? ` (attempt ${attempt})` : ''}
    </span>
  );
}

/**
 * A receiver without CORS for this page can still be reached through `npm start`'s relay, once the person
 * says so for this very URL: a link cannot make the relay fetch anything by itself.
 */
function RelayOffer({ url, headers }: { url: string; headers: Record<string, string> }) {
  const [confirming, setConfirming] = useState(false);
  return (
    <>
      <Button variant="primary" onClick={() => setConfirming(true)} data-testid="relay-offer">
        Connect through the local relay
      </Button>
      {confirming && (
        <Dialog
          title="Connect through the local relay"
          onClose={() => setConfirming(false)}
          testId="relay-dialog"
        >
          <div className="w-[32rem] max-w-full space-y-3 text-sm">
            <p>
              Taskscope&apos;s own server (the one <code>npm start</code> runs, on this machine only) will
              forward this page&apos;s MCP requests to <span className="font-mono break-all">{url}</span> and
              pass back only JSON and event-stream answers.
            </p>
            <p className="text-slate-600 dark:text-slate-300">
              Use it for receivers you trust. The choice is remembered for this URL; &ldquo;Connect
              directly&rdquo; on the receiver card undoes it.
            </p>
            <div className="flex justify-end gap-2">
              <Button variant="ghost" onClick={() => setConfirming(false)}>
                Cancel
              </Button>
              <Button
                variant="primary"
                data-testid="relay-confirm"
                onClick={() => {
                  setRelay(url, true);
                  setConfirming(false);
                  void connect(url, headers);
                }}
              >
                Connect through the relay
              </Button>
            </div>
          </div>
        </Dialog>
      )}
    </>
  );
}

/** Back from the relay to a direct connection, for a receiver that allows the page's origin after all. */
export function DirectInstead({ url, headers }: { url: string; headers: Record<string, string> }) {
  return (
    <p className="flex items-center gap-2 text-xs text-slate-600 dark:text-slate-300">
      Through the local relay.
      <Button
        variant="ghost"
        onClick={() => {
          setRelay(url, false);
          void connect(url, headers);
        }}
      >
        Connect directly
      </Button>
    </p>
  );
}

/** Whether the page has no working connection to show and an error to say instead. */
export function useConnectionProblem(): boolean {
  const replaying = useReplay((s) => s.connectionId !== undefined);
  return useConnection(
    (s) =>
      !replaying &&
      !!s.error &&
      (s.status === 'error' || s.status === 'unreachable' || s.status === 'session-lost'),
  );
}

/**
 * With no connection, the main pane says so where the eye goes: the error, what it means, and what to do
 * (the relay, the path to check, the next retry). Red is for the error alone; its explanation is plain text.
 */
export function ConnectionProblem() {
  const { status, error, url, headers, since, viaRelay, retryAt, attempt } = useConnection();
  if (!error) return null;
  return (
    <section
      role="alert"
      aria-label="Connection problem"
      className="space-y-3 rounded-lg border border-red-200 bg-white p-4 dark:border-red-900 dark:bg-slate-950"
      data-testid="connection-problem-pane"
    >
      <h1 className="flex items-center gap-2 text-base font-semibold text-red-700 dark:text-red-400">
        <CircleAlert size={18} aria-hidden />
        {problemTitle({ status, error })}
      </h1>
      <p className="text-sm" data-testid="connection-error">
        {error.message}
      </p>
      <p className="text-sm text-slate-600 dark:text-slate-300">{nextStep({ status, error, viaRelay })}</p>
      {error.detail && (
        <p className="font-mono text-xs break-all text-slate-600 dark:text-slate-300">{error.detail}</p>
      )}
      <p className="text-xs text-slate-600 dark:text-slate-300">
        <span className="font-mono break-all">{url}</span>
        {since && status !== 'error' ? ` · since ${formatClock(since)}` : ''}
      </p>
      <div className="flex flex-wrap items-center gap-3">
        {error.diagnosis === 'cors' && !viaRelay && <RelayOffer url={url} headers={headers} />}
        {error.kind === 'protocol' && (
          <span className="flex items-center gap-2 text-xs">
            Protocol to speak: <EraSelect url={url} headers={headers} />
          </span>
        )}
        <Button variant="outline" onClick={() => void connect(url, headers)} data-testid="problem-retry-now">
          <RotateCw size={14} aria-hidden /> Try again now
        </Button>
        {(status === 'unreachable' || status === 'session-lost') && retryAt !== undefined && (
          <span className="text-xs text-slate-600 dark:text-slate-300">
            <RetryIn at={retryAt} attempt={attempt} />
          </span>
        )}
      </div>
      {viaRelay && <DirectInstead url={url} headers={headers} />}
    </section>
  );
}
