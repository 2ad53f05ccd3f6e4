import { useEffect, useRef, useState } from 'react';
import { KeyRound } from 'lucide-react';
import { Badge, type Tone } from '../ui/Badge';
import { Button, focusRing } from '../ui/Button';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { safeHref } from '../ui/safe-url';
import { useConnection } from '../state/connection-store';
import { useNow } from '../state/clock';
import { formatCountdown, formatMs } from '../format/time';
import type { AuthStep, AuthView, ClientKind } from '../mcp';
import { connect } from './actions';
import { confirmOrigin, prepareSignIn, rememberSignIn, signIn, signOut } from './auth-actions';
import { authChoiceFor, setAuthChoice, useSignIn } from './sign-in-store';
import { isSignInRemembered, REMEMBER_SIGN_IN_WARNING } from './remembered-sign-ins';

const statusLook: Record<AuthView['status'], { tone: Tone; text: string }> = {
  none: { tone: 'neutral', text: 'signed out' },
  'confirm-origin': { tone: 'amber', text: 'allow an origin?' },
  'sign-in-needed': { tone: 'amber', text: 'sign-in needed' },
  'signing-in': { tone: 'blue', text: 'signing in…' },
  'signed-in': { tone: 'green', text: 'signed in' },
  'step-up-needed': { tone: 'amber', text: 'more scope asked' },
  failed: { tone: 'red', text: 'sign-in failed' },
};

const clientWords: Record<ClientKind, string> = {
  'pre-registered': 'pre-registered',
  'metadata-document': 'metadata document',
  dynamic: 'registered dynamically',
};

function originOf(url: string | undefined): string {
  try {
    return url ? new URL(url).origin : '';
  } catch {
    return '';
  }
}

function ExpiresIn({ at, canRefresh }: { at: number; canRefresh: boolean }) {
  const now = useNow();
  return (
    <span data-testid="auth-expires">
      {at > now ? formatCountdown(at - now) : 'expired'}
      {canRefresh ? ' (refreshed before then)' : ' (no refresh token: sign in again then)'}
    </span>
  );
}

function Step({ step }: { step: AuthStep }) {
  return (
    <li className="border-t border-slate-100 py-1 dark:border-slate-800" data-testid="auth-step">
      <div className="flex gap-1.5">
        <span
          aria-hidden
          className={step.ok ? 'text-green-700 dark:text-green-400' : 'text-red-700 dark:text-red-400'}
        >
          {step.ok ? '✓' : '✕'}
        </span>
        <span className="font-medium">{step.kind}</span>
        <span className="min-w-0 break-words">{step.summary}</span>
      </div>
      {step.why && <p className="text-red-700 dark:text-red-300">{step.why}</p>}
      {step.spec && <p className="text-slate-500 dark:text-slate-400">{step.spec}</p>}
      {step.exchanges.map((x, i) => (
        <details key={i} className="ml-4">
          <summary className={`cursor-pointer break-all ${focusRing}`}>
            {x.method} {x.url} → {x.status ?? x.error ?? '…'} · {formatMs(x.ms)}
          </summary>
          {x.requestBody && <pre className="overflow-x-auto whitespace-pre-wrap">{x.requestBody}</pre>}
          {x.responseBody && <pre className="overflow-x-auto whitespace-pre-wrap">{x.responseBody}</pre>}
        </details>
      ))}
    </li>
  );
}

/** The client identity form; `needed` (the server offers no registration) opens it with the client id focused. */
function ClientChoice({ url, needed }: { url: string; needed: boolean }) {
  const chosen = authChoiceFor(url);
  const [clientId, setClientId] = useState(chosen?.clientId ?? '');
  const [clientSecret, setClientSecret] = useState(chosen?.clientSecret ?? '');
  const [metadataUrl, setMetadataUrl] = useState(chosen?.clientMetadataUrl ?? '');
  const details = useRef<HTMLDetailsElement>(null);
  const idField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (!needed || !details.current) return;
    details.current.open = true;
    idField.current?.focus();
  }, [needed]);
  const field =
    'w-full rounded border border-slate-300 px-1.5 py-0.5 dark:border-slate-700 dark:bg-slate-900';
  return (
    <details className="mt-1" ref={details} data-testid="auth-client-identity">
      <summary className={`cursor-pointer ${focusRing}`}>Client identity</summary>
      <form
        className="mt-1 grid gap-1"
        onSubmit={(event) => {
          event.preventDefault();
          setAuthChoice(url, {
            clientId: clientId.trim() || undefined,
            clientSecret: clientSecret || undefined,
            clientMetadataUrl: metadataUrl.trim() || undefined,
          });
          const { headers } = useConnection.getState();
          void connect(url, headers);
        }}
      >
        <p className="text-slate-500 dark:text-slate-400">
          Empty: dynamic registration. Kept in this tab's memory only.
        </p>
        <label>
          Pre-registered client id
          <input
            className={field}
            ref={idField}
            value={clientId}
            onChange={(e) => setClientId(e.target.value)}
          />
        </label>
        <label>
          Client secret (optional)
          <input
            className={field}
            type="password"
            value={clientSecret}
            onChange={(e) => setClientSecret(e.target.value)}
          />
        </label>
        <label>
          Client ID Metadata Document URL (https)
          <input className={field} value={metadataUrl} onChange={(e) => setMetadataUrl(e.target.value)} />
        </label>
        <Button type="submit">Use and connect again</Button>
      </form>
    </details>
  );
}

function RememberBox({ url }: { url: string }) {
  useSignIn((s) => s.rememberTick);
  const on = isSignInRemembered(url);
  return (
    <div>
      <label className="flex items-center gap-1.5">
        <input
          type="checkbox"
          checked={on}
          onChange={(e) => void rememberSignIn(e.target.checked)}
          data-testid="auth-remember"
        />
        Remember sign-in
      </label>
      {on && <p className="text-amber-800 dark:text-amber-300">{REMEMBER_SIGN_IN_WARNING}</p>}
    </div>
  );
}

function AuthBody({ auth, url }: { auth: AuthView; url: string }) {
  const blockedUrl = useSignIn((s) => s.blockedUrl);
  const look = statusLook[auth.status];
  const link = safeHref(blockedUrl);
  return (
    <div className="space-y-1.5 px-3 py-2 text-xs" data-testid="auth-card">
      <div className="flex items-center gap-1.5">
        <KeyRound size={14} aria-hidden />
        <span className="font-semibold">Sign-in</span>
        <span data-testid="auth-status">
          <Badge tone={look.tone}>{look.text}</Badge>
        </span>
      </div>
      {(auth.status === 'sign-in-needed' || auth.status === 'step-up-needed') && (
        <div className="space-y-1">
          <p>
            {auth.status === 'step-up-needed'
              ? `A request needs ${auth.missingScopes?.length ? `scope ${auth.missingScopes.join(' ')}, beyond what was granted` : 'more scope than was granted'}. It waits while you sign in again.`
              : 'This receiver asks you to sign in.'}{' '}
            The sign-in page is at <strong>{originOf(auth.authorizationUrl)}</strong>.
          </p>
          <Button variant="primary" onClick={signIn} data-testid="auth-sign-in">
            {auth.status === 'step-up-needed' ? 'Sign in again' : 'Sign in'}
          </Button>
          {link && (
            <p data-testid="auth-blocked">
              The popup was blocked:{' '}
              <a href={link} target="_blank" rel="noopener noreferrer" className="underline">
                open the sign-in page in a new tab
              </a>
              .
            </p>
          )}
        </div>
      )}
      {auth.status === 'confirm-origin' && auth.confirmOrigin && (
        <div className="space-y-1" data-testid="auth-confirm-origin">
          <p>
            To sign in, Taskscope must contact <strong data-testid="auth-origin">{auth.confirmOrigin}</strong>
            . This receiver&apos;s metadata named it, so it is asked about as a relay target would be: allow
            it only if you expect this receiver to sign in there.
          </p>
          <div className="flex gap-1.5">
            <Button
              variant="primary"
              onClick={() => void confirmOrigin(auth.confirmOrigin ?? '', true)}
              data-testid="auth-origin-allow"
            >
              Allow
            </Button>
            <Button
              onClick={() => void confirmOrigin(auth.confirmOrigin ?? '', false)}
              data-testid="auth-origin-refuse"
            >
              Don&apos;t allow
            </Button>
          </div>
        </div>
      )}
      {auth.status === 'failed' && (
        <div className="space-y-1">
          <p className="text-red-700 dark:text-red-300" data-testid="auth-error">
            {auth.error}
          </p>
          <Button onClick={() => void prepareSignIn()}>Try again</Button>
        </div>
      )}
      {auth.status === 'none' && <Button onClick={() => void prepareSignIn()}>Sign in</Button>}
      {(auth.issuer || auth.clientId) && (
        <dl className="grid grid-cols-[auto_1fr] gap-x-2 gap-y-0.5">
          <dt className="text-slate-500 dark:text-slate-400">Server</dt>
          <dd className="break-all" data-testid="auth-issuer">
            {auth.issuer ?? '—'}
          </dd>
          <dt className="text-slate-500 dark:text-slate-400">Client</dt>
          <dd className="break-all" data-testid="auth-client">
            {auth.clientId ?? '—'}
            {auth.clientKind ? ` (${clientWords[auth.clientKind]})` : ''}
          </dd>
          <dt className="text-slate-500 dark:text-slate-400">Scopes</dt>
          <dd data-testid="auth-scopes">{auth.scopes?.join(' ') || '—'}</dd>
          {auth.status === 'signed-in' && auth.expiresAt !== undefined && (
            <>
              <dt className="text-slate-500 dark:text-slate-400">Expires in</dt>
              <dd>
                <ExpiresIn at={auth.expiresAt} canRefresh={auth.canRefresh === true} />
              </dd>
            </>
          )}
        </dl>
      )}
      {auth.origins.length > 0 && (
        <p className="text-slate-500 dark:text-slate-400">Origins contacted: {auth.origins.join(', ')}</p>
      )}
      {auth.status === 'signed-in' && (
        <Button onClick={() => void signOut()} data-testid="auth-sign-out">
          Sign out
        </Button>
      )}
      <RememberBox url={url} />
      <ClientChoice url={url} needed={auth.status === 'failed' && auth.clientNeeded === true} />
      {auth.steps.length > 0 && (
        <details data-testid="auth-steps">
          <summary className={`cursor-pointer ${focusRing}`}>Steps ({auth.steps.length})</summary>
          <ol className="mt-1">
            {auth.steps.map((step) => (
              <Step key={step.seq} step={step} />
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}

/** The receiver's sign-in, as a section under the receiver once it asked for one: status, who, what, the steps. */
export function AuthSection() {
  const auth = useConnection((s) => s.auth);
  const url = useConnection((s) => s.url);
  if (!auth) return null;
  return (
    <section aria-label="Sign-in" className="shrink-0 border-b border-slate-200 dark:border-slate-800">
      <ErrorBoundary label="The sign-in card">
        <AuthBody auth={auth} url={url} />
      </ErrorBoundary>
    </section>
  );
}
