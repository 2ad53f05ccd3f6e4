import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { PhoneCall, Play, RotateCcw } from 'lucide-react';
import { Button } from '../ui/Button';
import { ErrorNote } from '../ui/Panel';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { whyNotTask, type ClassifiedError, type ServerTaskSupport, type ToolInfo } from '../mcp';
import { callToolPlain, runToolAsTask } from './run-actions';
import { ResultBody } from '../results/ResultBody';
import { useShallow } from 'zustand/react/shallow';
import { useInbox } from '../inbox/inbox-store';
import { InboxItemCard } from '../inbox/InboxItemCard';
import type { Normalised, TaskResultSnapshot } from '../mcp';
import { buildValues, fieldsFromSchema, initialValues, type FormValues } from '../ui/schema-form';
import { SchemaFields, inputClass } from '../ui/SchemaFields';
import { TaskSupportBadge } from './TaskSupportBadge';
import { useConnection } from '../state/connection-store';
import { useReplay } from '../state/replay-store';
import { PASSIVE_OBSERVING, useObserve } from '../state/observe-store';
import { draftKey, saveRunDraft, useRunDrafts } from './run-drafts-store';
import { sayNames, valuesFromArgs } from './call-args';

type PlainCall =
  | { state: 'idle' }
  | { state: 'calling' }
  /** `atOnce`: asked as a task, and the receiver chose to answer at once (2026-07-28 lets it). */
  | { state: 'done'; answer: Normalised<TaskResultSnapshot>; atOnce?: boolean };

export function RunToolForm({ tool, support }: { tool: ToolInfo; support: ServerTaskSupport }) {
  const fields = useMemo(() => fieldsFromSchema(tool.inputSchema), [tool.inputSchema]);
  const key = draftKey(
    useConnection((s) => s.url),
    tool.name,
  );
  // Read once, when the form opens: the draft is where it left off, or a call "Run again" put there.
  const [opened] = useState(() => {
    const draft = useRunDrafts.getState().drafts[key];
    const filled = draft?.call ? valuesFromArgs(fields, draft.call.args) : undefined;
    return {
      values: { ...initialValues(fields), ...(filled?.values ?? draft?.values) },
      ttl: draft?.ttl ?? '',
      runAgain: draft?.call ? { fromTaskId: draft.call.fromTaskId, left: filled?.left ?? [] } : undefined,
    };
  });
  const [values, setValues] = useState<FormValues>(opened.values);
  const [ttl, setTtl] = useState(opened.ttl);
  useEffect(() => saveRunDraft(key, { values, ttl }), [key, values, ttl]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [runError, setRunError] = useState<ClassifiedError | null>(null);
  const [running, setRunning] = useState(0);
  const [plain, setPlain] = useState<PlainCall>({ state: 'idle' });
  // A plain call's questions belong to no task; show them here while the call waits for them.
  const asking = useInbox(
    useShallow((s) => s.items.filter((i) => i.state === 'pending' && !i.relatedTaskId)),
  );
  const replaying = useReplay((s) => s.connectionId !== undefined);
  const observing = useObserve((s) => s.connectionId !== undefined);
  const refusal = replaying
    ? 'This is a replay of a recording: no receiver is contacted, so nothing can be run.'
    : observing
      ? PASSIVE_OBSERVING
      : whyNotTask(tool, support);
  // A ttl kept in a draft from another generation or capability must not ride along unseen.
  const ttlShown = refusal === null && support.era !== '2026-07-28';

  /** The arguments if the form is valid; otherwise the errors are shown and nothing is sent. */
  const readForm = (withTtl: boolean): { args: Record<string, unknown>; ttlMs?: number } | null => {
    const built = buildValues(fields, values);
    const ttlMs = !withTtl || !ttlShown || ttl.trim() === '' ? undefined : Number(ttl);
    if (ttlMs !== undefined && (!Number.isInteger(ttlMs) || ttlMs <= 0))
      built.errors.__ttl = 'a whole number of ms';
    setErrors(built.errors);
    return Object.keys(built.errors).length > 0 ? null : { args: built.values, ttlMs };
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const form = readForm(true);
    if (!form) return;
    setRunError(null);
    // Several runs may be on their way at once; the button stays live.
    setRunning((n) => n + 1);
    const outcome = await runToolAsTask(tool, form.args, form.ttlMs);
    setRunning((n) => n - 1);
    if (!outcome.ok) setRunError(outcome.error);
    else if (outcome.taskId === undefined) setPlain({ state: 'done', answer: outcome.answer, atOnce: true });
  };

  const callPlain = async () => {
    const form = readForm(false);
    if (!form) return;
    setRunError(null);
    setPlain({ state: 'calling' });
    const outcome = await callToolPlain(tool, form.args);
    if (outcome.ok) setPlain({ state: 'done', answer: outcome.answer });
    else {
      setPlain({ state: 'idle' });
      setRunError(outcome.error);
    }
  };

  return (
    <div className="max-w-2xl space-y-4 p-4" data-testid="run-form">
      <form onSubmit={(e) => void submit(e)} className="space-y-4">
        <div className="flex items-center gap-2">
          <h1 className="font-mono text-lg font-semibold">{tool.name}</h1>
          <TaskSupportBadge support={tool.taskSupport} />
        </div>
        {tool.description && (
          <p className="text-sm whitespace-pre-wrap text-slate-600 dark:text-slate-300">{tool.description}</p>
        )}
        {opened.runAgain && (
          <p
            className="flex flex-wrap items-center gap-1 rounded bg-sky-50 px-3 py-2 text-sm text-sky-900 dark:bg-sky-950/40 dark:text-sky-200"
            data-testid="run-again-note"
          >
            <RotateCcw size={14} aria-hidden /> Filled with the call that created task{' '}
            <span className="font-mono text-xs">{opened.runAgain.fromTaskId}</span>.
            {opened.runAgain.left.length > 0 && (
              <span className="text-amber-800 [overflow-wrap:anywhere] dark:text-amber-300">
                {' '}
                Left out, as no field of this form holds them: {sayNames(opened.runAgain.left)}.
              </span>
            )}
          </p>
        )}
        {/* Two kinds of field: the tool's own arguments, and the task's (how long the receiver keeps it). */}
        <fieldset className="space-y-3" data-testid="tool-arguments">
          <legend className="mb-2 text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-300">
            Arguments <span className="font-normal normal-case">(the tool&apos;s input)</span>
          </legend>
          {fields.length === 0 && (
            <p className="text-sm text-slate-600 dark:text-slate-300">This tool takes no arguments.</p>
          )}
          <SchemaFields
            fields={fields}
            values={values}
            errors={errors}
            idPrefix="arg"
            onChange={(name, v) => setValues((all) => ({ ...all, [name]: v }))}
          />
        </fieldset>
        {refusal !== null ? null : support.era === '2026-07-28' ? (
          <p className="text-xs text-slate-500" data-testid="no-ttl-2026">
            2026-07-28: the receiver chooses whether this call becomes a task, and for how long it is kept.
          </p>
        ) : (
          <fieldset className="space-y-1 border-t border-slate-200 pt-3 dark:border-slate-800">
            <legend className="mb-2 text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-300">
              Task{' '}
              <span className="font-normal normal-case">(sent beside the arguments, not to the tool)</span>
            </legend>
            <label htmlFor="task-ttl" className="text-sm font-medium">
              Task ttl{' '}
              <span className="text-xs font-normal text-slate-600 dark:text-slate-300">
                (ms, optional: how long the receiver keeps the task and its result; it may change it)
              </span>
            </label>
            <input
              id="task-ttl"
              value={ttl}
              onChange={(e) => setTtl(e.target.value)}
              inputMode="numeric"
              className={`${inputClass} w-40 font-mono`}
              placeholder="e.g. 60000"
            />
            {fields.some((f) => /ttl/i.test(f.name)) && (
              <p className="text-xs text-slate-600 dark:text-slate-300" data-testid="ttl-fields-note">
                Not the same as the tool&apos;s own{' '}
                {fields
                  .filter((f) => /ttl/i.test(f.name))
                  .map((f) => f.name)
                  .join(', ')}{' '}
                argument above, which only the tool reads.
              </p>
            )}
            {errors.__ttl && <p className="text-xs text-red-600">{errors.__ttl}</p>}
          </fieldset>
        )}
        <div className="flex flex-wrap items-center gap-3">
          <Button
            type="submit"
            variant="primary"
            disabled={refusal !== null}
            title={refusal ?? undefined}
            className="shrink-0 whitespace-nowrap"
          >
            <Play size={14} /> Run as task
          </Button>
          {running > 0 && (
            <span className="text-xs text-slate-500">
              Creating {running > 1 ? `${running} tasks` : 'the task'}…
            </span>
          )}
          {tool.taskSupport !== 'required' && (
            <Button
              onClick={() => void callPlain()}
              disabled={plain.state === 'calling'}
              title="tools/call without a task: the answer comes inline"
              className="shrink-0 whitespace-nowrap"
            >
              <PhoneCall size={14} /> {plain.state === 'calling' ? 'Calling…' : 'Call without task'}
            </Button>
          )}
          {refusal && (
            <span className="min-w-48 flex-1 text-xs text-slate-500" data-testid="no-task-reason">
              {refusal}
            </span>
          )}
        </div>
      </form>
      {/* Outside the form above: these cards are forms of their own, and forms must not nest. */}
      {plain.state === 'calling' && asking.map((item) => <InboxItemCard key={item.key} item={item} />)}
      {plain.state === 'done' && plain.atOnce && (
        <p className="text-sm text-slate-600 dark:text-slate-300" data-testid="answered-at-once">
          The receiver answered at once instead of creating a task:
        </p>
      )}
      {plain.state === 'done' && (
        <ErrorBoundary label="The result" raw={() => plain.answer.value.result}>
          <ResultBody answer={plain.answer} fileName={`${tool.name}-result.json`} />
        </ErrorBoundary>
      )}
      {runError && (
        <ErrorNote title="The receiver refused the call">
          {runError.message}
          {runError.detail && <span className="mt-1 block font-mono text-xs">{runError.detail}</span>}
        </ErrorNote>
      )}
    </div>
  );
}
