import { lazy, Suspense, useId, useState } from 'react';
import { Dialog } from '../ui/Dialog';
import { Button } from '../ui/Button';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { inputClass } from '../ui/SchemaFields';
import { useConnection } from '../state/connection-store';
import type { ClassifiedError } from '../mcp';
import { parseParams, resendRequest, useLiveReceiver } from './resend';

const JsonTree = lazy(() => import('../ui/JsonTree'));

type Phase =
  | { kind: 'ready' }
  | { kind: 'sending' }
  | { kind: 'answered'; result: unknown }
  | { kind: 'failed'; error: ClassifiedError };

/**
 * Resend, always through this dialog: it names the receiver the request will go to, and nothing is sent
 * until the person says Send (a recorded request, from this session or an imported trace, never goes by itself).
 */
export function ResendDialog({
  method,
  params,
  editable,
  onClose,
}: {
  method: string;
  params: unknown;
  editable: boolean;
  onClose: () => void;
}) {
  const url = useConnection((s) => s.url);
  const live = useLiveReceiver();
  const [text, setText] = useState(() => (params === undefined ? '' : JSON.stringify(params, null, 2)));
  const [phase, setPhase] = useState<Phase>({ kind: 'ready' });
  const editorId = useId();
  const parsed = parseParams(text);

  const send = async () => {
    if (!parsed.ok || !live) return;
    setPhase({ kind: 'sending' });
    const reply = await resendRequest(method, parsed.params);
    setPhase(reply.ok ? { kind: 'answered', result: reply.result } : { kind: 'failed', error: reply.error });
  };

  return (
    <Dialog
      title={editable ? `Edit and resend ${method}` : `Resend ${method}`}
      onClose={onClose}
      testId="resend-dialog"
    >
      <div className="w-[36rem] max-w-full space-y-3 text-sm">
        <p data-testid="resend-target">
          Send <span className="font-mono font-semibold">{method}</span> to{' '}
          <span className="font-mono break-all">{url}</span>, in the current session, with a new request id?
        </p>
        {editable ? (
          <div className="space-y-1">
            <label htmlFor={editorId} className="text-xs font-medium text-slate-600 dark:text-slate-300">
              params (JSON object; empty for none)
            </label>
            <textarea
              id={editorId}
              value={text}
              onChange={(e) => setText(e.target.value)}
              rows={10}
              spellCheck={false}
              aria-invalid={!parsed.ok}
              aria-describedby={parsed.ok ? undefined : `${editorId}-error`}
              className={`${inputClass} font-mono text-xs`}
              data-testid="resend-params"
            />
            {!parsed.ok && (
              <p id={`${editorId}-error`} role="alert" className="text-xs text-red-600 dark:text-red-400">
                {parsed.error}
              </p>
            )}
          </div>
        ) : (
          <pre className="max-h-40 overflow-auto rounded bg-slate-50 p-2 font-mono text-xs dark:bg-slate-950">
            {text || '(no params)'}
          </pre>
        )}
        <div className="flex items-center gap-2">
          <Button
            variant="primary"
            onClick={() => void send()}
            disabled={!parsed.ok || !live || phase.kind === 'sending'}
            data-testid="resend-confirm"
          >
            {phase.kind === 'sending' ? 'Sending…' : phase.kind === 'ready' ? 'Send' : 'Send again'}
          </Button>
          <Button variant="ghost" onClick={onClose}>
            Close
          </Button>
          {!live && <span className="text-xs text-slate-500">Not connected: nothing can be sent.</span>}
        </div>
        {phase.kind === 'answered' && (
          <section data-testid="resend-answer" className="space-y-1">
            <h3 className="text-xs font-semibold text-slate-500">Answer</h3>
            <ErrorBoundary label="The answer">
              <Suspense
                fallback={<pre className="text-xs">{JSON.stringify(phase.result).slice(0, 2000)}</pre>}
              >
                <JsonTree value={phase.result} expanded />
              </Suspense>
            </ErrorBoundary>
          </section>
        )}
        {phase.kind === 'failed' && (
          <p role="alert" data-testid="resend-error" className="text-xs text-red-600 dark:text-red-400">
            {phase.error.message}
          </p>
        )}
      </div>
    </Dialog>
  );
}
