import { useMemo, useState, type FormEvent } from 'react';
import { Play } from 'lucide-react';
import { Button } from '../ui/Button';
import { ErrorNote } from '../ui/Panel';
import { whyNotTask, type ClassifiedError, type ServerTaskSupport, type ToolInfo } from '../mcp';
import { runToolAsTask } from '../tasks/actions';
import { buildValues, fieldsFromSchema, initialValues, type FormValues } from '../ui/schema-form';
import { SchemaFields, inputClass } from '../ui/SchemaFields';
import { TaskSupportBadge } from './TaskSupportBadge';

export function RunToolForm({ tool, support }: { tool: ToolInfo; support: ServerTaskSupport }) {
  const fields = useMemo(() => fieldsFromSchema(tool.inputSchema), [tool.inputSchema]);
  const [values, setValues] = useState<FormValues>(() => initialValues(fields));
  const [ttl, setTtl] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [runError, setRunError] = useState<ClassifiedError | null>(null);
  const [running, setRunning] = useState(0);
  const refusal = whyNotTask(tool, support);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const built = buildValues(fields, values);
    const ttlMs = ttl.trim() === '' ? undefined : Number(ttl);
    if (ttlMs !== undefined && (!Number.isInteger(ttlMs) || ttlMs <= 0))
      built.errors.__ttl = 'a whole number of ms';
    setErrors(built.errors);
    if (Object.keys(built.errors).length > 0) return;
    setRunError(null);
    // Several runs may be on their way at once; the button stays live.
    setRunning((n) => n + 1);
    const outcome = await runToolAsTask(tool, built.values, ttlMs);
    setRunning((n) => n - 1);
    if (!outcome.ok) setRunError(outcome.error);
  };

  return (
    <form onSubmit={(e) => void submit(e)} className="max-w-2xl space-y-4 p-4" data-testid="run-form">
      <div className="flex items-center gap-2">
        <h1 className="font-mono text-lg font-semibold">{tool.name}</h1>
        <TaskSupportBadge support={tool.taskSupport} />
      </div>
      {tool.description && (
        <p className="text-sm whitespace-pre-wrap text-slate-600 dark:text-slate-300">{tool.description}</p>
      )}
      {fields.length === 0 && <p className="text-sm text-slate-500">This tool takes no arguments.</p>}
      <SchemaFields
        fields={fields}
        values={values}
        errors={errors}
        idPrefix="arg"
        onChange={(name, v) => setValues((all) => ({ ...all, [name]: v }))}
      />
      <div className="space-y-1">
        <label htmlFor="task-ttl" className="text-sm font-medium">
          Task ttl{' '}
          <span className="text-xs font-normal text-slate-500">
            (ms, optional; the receiver may change it)
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
        {errors.__ttl && <p className="text-xs text-red-600">{errors.__ttl}</p>}
      </div>
      <div className="flex items-center gap-3">
        <Button type="submit" variant="primary" disabled={refusal !== null} title={refusal ?? undefined}>
          <Play size={14} /> Run as task
        </Button>
        {running > 0 && (
          <span className="text-xs text-slate-500">
            Creating {running > 1 ? `${running} tasks` : 'the task'}…
          </span>
        )}
        {refusal && <span className="text-xs text-slate-500">{refusal}</span>}
      </div>
      {runError && (
        <ErrorNote title="The task was not created">
          {runError.message}
          {runError.detail && <span className="mt-1 block font-mono text-xs">{runError.detail}</span>}
        </ErrorNote>
      )}
    </form>
  );
}
