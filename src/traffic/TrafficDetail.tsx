import { lazy, Suspense, useId, useState } from 'react';
import { Pencil, Send, X } from 'lucide-react';
import { Button, focusRing } from '../ui/Button';
import { CopyButton } from '../ui/CopyButton';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { formatClock } from '../format/time';
import { useConnection } from '../state/connection-store';
import { useReplay } from '../state/replay-store';
import { isOmittedBody, isSecretHeader, type HttpFacts, type TrafficEvent } from '../mcp';
import { curlCommand, secretsWithheld } from './curl';
import { formatBytes } from '../format/bytes';
import { ResendDialog } from './ResendDialog';
import { useLiveReceiver } from './resend';
import type { TrafficRow } from '../engine/traffic-rows';

const JsonTree = lazy(() => import('../ui/JsonTree'));

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** A body the log cut for its size cannot be copied or sent again as it was. */
const wasCut = (event: TrafficEvent) => isOmittedBody(event.message);

function Body({ label, event }: { label: string; event: TrafficEvent }) {
  return (
    <section className="min-w-0">
      <h4 className="mb-0.5 text-[10px] font-semibold tracking-wide text-slate-500 uppercase">
        {label} · {event.direction === 'out' ? 'sent' : 'received'}{' '}
        {formatClock(event.wallTime, { millis: true })} · {formatBytes(Math.max(0, event.bytes))}
      </h4>
      <ErrorBoundary label={`The ${label.toLowerCase()}`}>
        <Suspense fallback={<pre className="text-xs">{pretty(event.message).slice(0, 2000)}</pre>}>
          <JsonTree value={event.message} expanded />
        </Suspense>
      </ErrorBoundary>
    </section>
  );
}

function Headers({ title, headers }: { title: string; headers: Record<string, string> }) {
  const entries = Object.entries(headers);
  if (entries.length === 0) return null;
  return (
    <details className="text-[11px]">
      <summary className={`cursor-pointer rounded text-slate-500 ${focusRing}`}>
        {title} ({entries.length})
      </summary>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-2 pl-3 font-mono">
        {entries.map(([name, value]) => (
          <div key={name} className="contents">
            <dt className="text-slate-500">{name}</dt>
            <dd className="break-all">{value}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}

function HttpExchange({ http }: { http: HttpFacts }) {
  return (
    <section className="space-y-0.5" data-testid="traffic-http">
      <p className="font-mono text-[11px] break-all">
        <span className="text-slate-500">{http.method}</span> {http.url}{' '}
        <span
          className={
            http.status >= 400 ? 'text-red-600 dark:text-red-400' : 'text-green-700 dark:text-green-400'
          }
        >
          {http.status}
        </span>{' '}
        <span className="text-slate-500">
          · sent {formatClock(http.wallStartedAt, { millis: true })} · headers after {Math.round(http.waitMs)}{' '}
          ms
        </span>
      </p>
      <Headers title="Request headers" headers={http.requestHeaders} />
      <Headers title="Response headers" headers={http.responseHeaders} />
    </section>
  );
}

/** The opened row: request and answer side by side with the HTTP exchange, ways to copy them, and resend. */
export function TrafficDetail({ row, onClose }: { row: TrafficRow; onClose: () => void }) {
  const connection = useConnection();
  const replaying = useReplay((s) => s.connectionId !== undefined);
  const [includeSecrets, setIncludeSecrets] = useState(false);
  const [resend, setResend] = useState<null | 'as-is' | 'edit'>(null);
  const secretsId = useId();
  const { first, answer } = row;
  const ourRequest = first.direction === 'out' && first.kind === 'request' && first.method !== undefined;
  const http = answer?.http ?? first.http;
  const hasSecrets = Object.keys(connection.headers).some(isSecretHeader);
  const live = useLiveReceiver();
  const canResend = ourRequest && !wasCut(first) && first.method !== 'initialize';
  const curlUrl = http?.url ?? connection.url;
  const sameConnection = first.connectionId === connection.id && !replaying;
  const withheld = includeSecrets
    ? secretsWithheld({ url: curlUrl, connectionUrl: connection.url, sameConnection })
    : undefined;
  const curl = () =>
    curlCommand({
      url: curlUrl,
      connectionUrl: connection.url,
      sameConnection,
      message: first.message,
      sentHeaders: http?.requestHeaders,
      personHeaders: connection.headers,
      sessionId: connection.sessionId,
      protocolVersion: connection.server?.protocolVersion,
      includeSecrets,
    });
  const params = (first.message as { params?: unknown }).params;

  return (
    <div className="flex min-h-0 min-w-0 flex-col" data-testid="traffic-detail" aria-label="Message detail">
      <div className="flex flex-wrap items-center gap-1 border-b border-slate-200 px-2 py-1 dark:border-slate-800">
        <span className="mr-1 font-mono text-xs font-semibold">{row.method ?? first.kind}</span>
        {row.taskId && <span className="mr-1 font-mono text-[11px] text-slate-500">task {row.taskId}</span>}
        {ourRequest && !wasCut(first) && (
          <>
            <CopyButton text={curl} label="curl" title="Copy as curl" testId="copy-curl" />
            {hasSecrets && (
              <label
                htmlFor={secretsId}
                className="flex items-center gap-1 text-[11px] text-slate-600 dark:text-slate-300"
              >
                <input
                  id={secretsId}
                  type="checkbox"
                  checked={includeSecrets}
                  onChange={(e) => setIncludeSecrets(e.target.checked)}
                  className={`rounded ${focusRing}`}
                  data-testid="curl-secrets"
                />
                include secrets
              </label>
            )}
            {withheld && (
              <span
                className="text-[11px] text-amber-700 dark:text-amber-400"
                data-testid="curl-secrets-withheld"
              >
                kept redacted: {withheld}
              </span>
            )}
          </>
        )}
        <CopyButton
          text={() => pretty(first.message)}
          label={first.kind === 'request' ? 'request' : 'message'}
          title={first.kind === 'request' ? 'Copy the JSON-RPC request' : 'Copy the message'}
          testId="copy-request"
        />
        {answer && (
          <CopyButton
            text={() => pretty(answer.message)}
            label="answer"
            title="Copy the answer"
            testId="copy-answer"
          />
        )}
        {canResend && (
          <>
            <Button
              variant="ghost"
              className="text-xs"
              disabled={!live}
              title={live ? 'Send this request again to the receiver' : 'Resend needs a live connection'}
              onClick={() => setResend('as-is')}
              data-testid="resend"
            >
              <Send size={12} /> Resend
            </Button>
            <Button
              variant="ghost"
              className="text-xs"
              disabled={!live}
              title={live ? 'Edit the params, then send' : 'Resend needs a live connection'}
              onClick={() => setResend('edit')}
              data-testid="edit-resend"
            >
              <Pencil size={12} /> Edit and resend
            </Button>
          </>
        )}
        <Button
          variant="ghost"
          className="ml-auto"
          onClick={onClose}
          aria-label="Close the message (Esc)"
          title="Close the message (Esc)"
          data-testid="traffic-detail-close"
        >
          <X size={12} />
        </Button>
      </div>
      <div className="min-h-0 flex-1 space-y-2 overflow-auto px-2 py-1">
        {http && <HttpExchange http={http} />}
        <div className="grid gap-2 xl:grid-cols-2">
          <Body label={first.kind === 'request' ? 'Request' : 'Message'} event={first} />
          {answer ? (
            <Body label="Answer" event={answer} />
          ) : (
            first.kind === 'request' && <p className="text-xs text-slate-500">No answer yet.</p>
          )}
        </div>
      </div>
      {resend && first.method && (
        <ResendDialog
          method={first.method}
          params={params}
          editable={resend === 'edit'}
          onClose={() => setResend(null)}
        />
      )}
    </div>
  );
}
