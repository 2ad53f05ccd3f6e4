import { useMemo, useState, type FormEvent } from 'react';
import { Button } from '../ui/Button';
import { cutText } from '../mcp/json';
import { SchemaFields } from '../ui/SchemaFields';
import { buildValues, fieldsFromSchema, initialValues, type FormValues } from '../ui/schema-form';
import { answerElicitation } from './actions';
import type { InboxItem } from './inbox-store';

/** A form wider than this is not drawn field by field (10,000 inputs block the page for seconds). */
const MAX_FORM_FIELDS = 100;

function propertyCount(schema: unknown): number {
  const properties = (schema as { properties?: unknown } | null)?.properties;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties).length : 0;
}

/** An elicitation/create as a form: defaults filled in, checked before it is sent, Accept / Decline / Cancel. */
export function ElicitationCard({ item }: { item: InboxItem }) {
  const width = propertyCount(item.params.requestedSchema);
  return width > MAX_FORM_FIELDS ? (
    <WideElicitation item={item} width={width} />
  ) : (
    <FormElicitation item={item} />
  );
}

/** A form too wide to draw: the person answers with the content as JSON, or declines. */
function WideElicitation({ item, width }: { item: InboxItem; width: number }) {
  const [text, setText] = useState('{}');
  const [error, setError] = useState<string | null>(null);
  const accept = (event: FormEvent) => {
    event.preventDefault();
    try {
      const content: unknown = JSON.parse(text);
      if (typeof content !== 'object' || content === null || Array.isArray(content))
        throw new Error('the content must be a JSON object');
      answerElicitation(item.key, 'accept', content as Record<string, unknown>);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <form onSubmit={accept} className="space-y-3" data-testid="elicitation-form">
      <p className="text-sm whitespace-pre-wrap">
        {typeof item.params.message === 'string' ? cutText(item.params.message, 2000) : '(no message)'}
      </p>
      <p className="text-xs text-amber-700 dark:text-amber-400" data-testid="elicitation-too-wide">
        This form asks for {width.toLocaleString()} fields, more than the {MAX_FORM_FIELDS} Taskscope draws.
        Answer with the content as JSON, or decline.
      </p>
      <textarea
        value={text}
        onChange={(e) => setText(e.target.value)}
        rows={4}
        aria-label="Content as JSON"
        className="w-full rounded bg-slate-50 p-2 font-mono text-xs ring-1 ring-slate-200 ring-inset dark:bg-slate-950 dark:ring-slate-700"
      />
      {error && <p className="text-xs text-red-600">{error}</p>}
      <div className="flex gap-2">
        <Button type="submit" variant="primary">
          Accept
        </Button>
        <Button onClick={() => answerElicitation(item.key, 'decline')}>Decline</Button>
      </div>
    </form>
  );
}

function FormElicitation({ item }: { item: InboxItem }) {
  const fields = useMemo(() => fieldsFromSchema(item.params.requestedSchema), [item.params.requestedSchema]);
  const [values, setValues] = useState<FormValues>(() => initialValues(fields));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const message =
    typeof item.params.message === 'string' ? cutText(item.params.message, 4000) : '(no message)';
  const urlMode = item.params.mode === 'url';

  const accept = (event: FormEvent) => {
    event.preventDefault();
    const built = buildValues(fields, values);
    setErrors(built.errors);
    if (Object.keys(built.errors).length === 0) answerElicitation(item.key, 'accept', built.values);
  };

  return (
    <form onSubmit={accept} className="space-y-3" data-testid="elicitation-form">
      <p className="text-sm whitespace-pre-wrap">{message}</p>
      {urlMode ? (
        <p className="text-xs text-amber-700 dark:text-amber-400">
          This receiver asks to open a URL; Taskscope answers form requests only. Decline it.
        </p>
      ) : (
        <SchemaFields
          fields={fields}
          values={values}
          errors={errors}
          idPrefix={`elicit-${item.key}`}
          onChange={(name, v) => setValues((all) => ({ ...all, [name]: v }))}
        />
      )}
      <div className="flex gap-2">
        <Button type="submit" variant="primary" disabled={urlMode}>
          Accept
        </Button>
        <Button onClick={() => answerElicitation(item.key, 'decline')}>Decline</Button>
        <Button variant="ghost" onClick={() => answerElicitation(item.key, 'cancel')}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
