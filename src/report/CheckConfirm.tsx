import { useId, useState } from 'react';
import { Play } from 'lucide-react';
import { CHECK_LIMITS, CHECK_STEPS, missingArguments, seconds } from '../engine/active-check/plan';
import { useConnection } from '../state/connection-store';
import { sayNames } from '../tools/call-args';
import { Button, focusRing } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { inputClass } from '../ui/SchemaFields';
import { startCheck } from './actions';
import { argsText, checkChoices, parseArgs, prefillArgs } from './check-args';
import { useReceiverTools } from './hooks';

/**
 * Asks before the check runs: it creates tasks on someone's server with the tool and arguments chosen here, and
 * says what it will leave behind.
 */
export function CheckConfirm({ url, onClose }: { url: string; onClose: () => void }) {
  const receiverUrl = useConnection((s) => s.url);
  const taskCalls = useConnection((s) => s.support?.toolCall ?? true);
  const canCancel = useConnection((s) => s.support?.cancel ?? false);
  const tools = checkChoices(useReceiverTools());
  const [tool, setTool] = useState(tools[0]?.name ?? '');
  const picked = taskCalls ? (tools.find((t) => t.name === tool) ?? tools[0]) : undefined;
  // What the person types stays with its tool while the dialog is open (a modal: no run changes the prefill).
  // A Map: a tool's name is the receiver's text, "__proto__" included.
  const [typed, setTyped] = useState<ReadonlyMap<string, string>>(new Map());
  const prefill = picked ? prefillArgs(receiverUrl, picked) : undefined;
  const text = picked ? (typed.get(picked.name) ?? argsText(prefill?.args ?? {})) : '';
  const parsed = parseArgs(text);
  const missing = picked && parsed.ok ? missingArguments(picked, parsed.args) : [];
  const fieldId = useId();
  return (
    <Dialog
      title="Check this receiver?"
      onClose={onClose}
      testId="check-confirm"
      className="w-[min(36rem,95vw)]"
    >
      <div className="space-y-3 text-sm">
        <p>
          The check sends requests to <span className="font-mono [overflow-wrap:anywhere]">{url}</span> and{' '}
          <strong>creates tasks on that server</strong>: up to three runs of the tool below, with the
          arguments given there. It also calls a tool that requires a task without one and, as a task, a tool
          that forbids tasks — only the tool below, or one the receiver marks read-only, since a receiver that
          breaks these rules may run it — asks about made-up task ids and cursors, calls tasks/result early,
          tries methods the receiver does not declare, and reads its tasks again{' '}
          {seconds(CHECK_LIMITS.readAgainAfterMs)} after they ended.
        </p>
        <p data-testid="check-cleanup">
          {canCancel
            ? 'When it ends (or you press Stop), it cancels the tasks it started that still run.'
            : 'This receiver does not declare tasks/cancel: the tasks it starts are not cancelled but left to run out and expire at their ttl.'}
        </p>
        <p data-testid="check-limits">
          Each request waits {seconds(CHECK_LIMITS.requestMs)} at most ({seconds(CHECK_LIMITS.createMs)} for
          the call that starts a task); the whole check stops itself after {seconds(CHECK_LIMITS.overallMs)}.
        </p>
        <p className="text-xs text-slate-500">Steps: {CHECK_STEPS.map((s) => s.title).join(' · ')}.</p>
        {picked ? (
          <div className="space-y-2">
            <label className="flex flex-wrap items-center gap-2">
              <span>Tool to run as a task:</span>
              <select
                value={picked.name}
                onChange={(event) => setTool(event.target.value)}
                className={`max-w-full rounded border border-slate-300 bg-white px-2 py-1 font-mono text-sm dark:border-slate-700 dark:bg-slate-900 ${focusRing}`}
                data-testid="check-tool"
              >
                {tools.map((t) => (
                  <option key={t.name} value={t.name}>
                    {t.name}
                  </option>
                ))}
              </select>
            </label>
            <div className="space-y-1">
              <label htmlFor={fieldId} className="text-xs font-medium text-slate-600 dark:text-slate-300">
                Its arguments (a JSON object){' '}
                <span className="font-normal" data-testid="check-args-source">
                  {prefill?.source === 'last-run'
                    ? '— filled from its last run here'
                    : "— filled with the tool's defaults"}
                </span>
              </label>
              <textarea
                id={fieldId}
                value={text}
                onChange={(event) => {
                  const value = event.target.value;
                  setTyped((all) => new Map(all).set(picked.name, value));
                }}
                rows={Math.min(8, Math.max(2, text.split('\n').length))}
                spellCheck={false}
                aria-invalid={!parsed.ok}
                aria-describedby={parsed.ok ? undefined : `${fieldId}-error`}
                className={`${inputClass} font-mono text-xs`}
                data-testid="check-args"
              />
              {!parsed.ok && (
                <p
                  id={`${fieldId}-error`}
                  role="alert"
                  className="text-xs text-red-600 dark:text-red-400"
                  data-testid="check-args-error"
                >
                  {parsed.error}
                </p>
              )}
              {missing.length > 0 && (
                <p
                  className="text-xs text-amber-700 [overflow-wrap:anywhere] dark:text-amber-400"
                  data-testid="check-args-missing"
                >
                  {picked.name} requires {sayNames(missing)}, not given here: the receiver may refuse the
                  call, and the steps that need a task are then skipped.
                </p>
              )}
            </div>
          </div>
        ) : (
          <p className="text-amber-700 dark:text-amber-400" data-testid="check-no-tool">
            {taskCalls
              ? 'No tool here may run as a task: the check starts no task, and the steps that need one are skipped.'
              : 'This receiver does not declare task-augmented tools/call: the check starts no task, and the steps that need one are skipped.'}
          </p>
        )}
        <div className="flex justify-end gap-2">
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button
            variant="primary"
            data-testid="confirm-check"
            disabled={!parsed.ok}
            title={parsed.ok ? undefined : 'The arguments are not a JSON object: see beside the field'}
            onClick={() => {
              if (!parsed.ok) return;
              onClose();
              void startCheck(picked?.name, picked ? parsed.args : undefined);
            }}
          >
            <Play size={13} /> Run the check
          </Button>
        </div>
      </div>
    </Dialog>
  );
}
