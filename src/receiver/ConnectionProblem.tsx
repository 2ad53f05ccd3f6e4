import { useState } from 'react';
import type { ReactNode } from 'react';
import { CircleAlert, LogIn, RotateCw } from 'lucide-react';
import { Button } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { useConnection, type ConnectionState } from '../state/connection-store';
import { useNow } from '../state/clock';
import { formatClock } from '../format/time';
import { connect } from './actions';
import { setRelay } from './saved-receivers-store';
import { EraSelect } from './EraSelect';
import { prepareSignIn, signIn } from './auth-actions';
import { useConnectionView, type ConnectionKind } from '../state/connection-view';

/** What the person can do about it, said in one line under the receiver's own message. */
function nextStep(
  kind: ConnectionKind,
  { error, viaRelay }: Pick<ConnectionState, 'error' | 'viaRelay'>,
): string {
  switch (kind) {
    case 'reconnecting':
    case 'unreachable':
      return 'Taskscope tries again by itself while this page is open; what was seen stays on screen.';
    case 'server-exited':
      return 'Its live tasks ended with it. Restart runs the command again (its console shows what it wrote).';
    case 'sign-in-needed':
      return 'Sign in to the receiver; the connection goes on once you have.';
    default:
      if (error?.diagnosis === 'cors' && !viaRelay)
        return 'The receiver answers, but its CORS settings do not allow this page. Taskscope can reach it through its own local server instead.';
      if (error?.kind === 'protocol')
        return 'Choose the protocol version to speak with this receiver, or check its URL.';
      // The receiver answered: its own words say what is wrong; the URL is only one thing it may be.
      if (error?.code !== undefined)
        return 'The receiver answered this: change what it refused (the URL, its query or the headers), then connect again.';
      return 'Check the URL in the header (its host, port and path), then connect again.';
  }
}

/** Sign in from the main pane: the popup when a sign-in is ready, else a new one is got ready first. */
function SignInButton() {
  const ready = useConnection((s) => !!s.auth?.authorizationUrl && s.auth.status === 'sign-in-needed');
  return (
    <Button
      variant="primary"
      onClick={() => (ready ? signIn() : void prepareSignIn())}
      data-testid="problem-sign-in"
    >
      <LogIn size={14} aria-hidden /> {ready ? 'Sign in' : 'Get a sign-in ready'}
    </Button>
  );
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

/**
 * With no connection, the main pane says so where the eye goes: the error, what it means, and what to do
 * (the relay, the path to check, the next retry). Red is for the error alone; its explanation is plain text.
 */
export function ConnectionProblem({ restart }: { restart?: ReactNode }) {
  const { status, error, url, headers, since, viaRelay, retryAt, attempt } = useConnection();
  const view = useConnectionView();
  if (!view.problem) return null;
  return (
    <section
      role="alert"
      aria-label="Connection problem"
      className="space-y-3 rounded-lg border border-red-200 bg-white p-4 dark:border-red-900 dark:bg-slate-950"
      data-testid="connection-problem-pane"
    >
      <h1 className="flex items-center gap-2 text-base font-semibold text-red-700 dark:text-red-400">
        <CircleAlert size={18} aria-hidden />
        {view.kind === 'refused' && error?.diagnosis === 'cors'
          ? "The receiver does not allow this page's origin (CORS)"
          : view.title}
      </h1>
      {/* The receiver's (or the bridge's) own sentence, whole: it says what is wrong better than any advice. */}
      {error && (
        <p className="text-sm break-words whitespace-pre-wrap" data-testid="connection-error">
          {error.message}
        </p>
      )}
      <p className="text-sm text-slate-600 dark:text-slate-300" data-testid="connection-next-step">
        {nextStep(view.kind, { error, viaRelay })}
      </p>
      {error?.detail && error.detail !== error.message && (
        <p className="font-mono text-xs break-all text-slate-600 dark:text-slate-300">{error.detail}</p>
      )}
      <p className="text-xs text-slate-600 dark:text-slate-300">
        <span className="font-mono break-all">{url}</span>
        {since && status !== 'error' ? ` · since ${formatClock(since)}` : ''}
      </p>
      <div className="flex flex-wrap items-center gap-3">
        {view.kind === 'sign-in-needed' && <SignInButton />}
        {view.kind === 'server-exited' && restart}
        {error?.diagnosis === 'cors' && !viaRelay && <RelayOffer url={url} headers={headers} />}
        {error?.kind === 'protocol' && (
          <span className="flex items-center gap-2 text-xs">
            Protocol to speak: <EraSelect url={url} headers={headers} />
          </span>
        )}
        {/* The same stdio connection would meet the same ended process: Restart is the way back there. */}
        {view.kind !== 'server-exited' && (
          <Button
            variant="outline"
            onClick={() => void connect(url, headers)}
            data-testid="problem-retry-now"
          >
            <RotateCw size={14} aria-hidden /> Try again now
          </Button>
        )}
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
