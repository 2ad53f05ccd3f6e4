import { useMemo, useState, type FormEvent } from 'react';
import { Button } from '../ui/Button';
import { SchemaFields } from '../ui/SchemaFields';
import { buildValues, fieldsFromSchema, initialValues, type FormValues } from '../ui/schema-form';
import { answerElicitation } from './actions';
import type { InboxItem } from './store';

/** An elicitation/create as a form: defaults filled in, checked before it is sent, Accept / Decline / Cancel. */
export function ElicitationCard({ item }: { item: InboxItem }) {
  const fields = useMemo(() => fieldsFromSchema(item.params.requestedSchema), [item.params.requestedSchema]);
  const [values, setValues] = useState<FormValues>(() => initialValues(fields));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const message = typeof item.params.message === 'string' ? item.params.message : '(no message)';
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
