import type { Field, FormValues } from './schema-form';

export const inputClass =
  'w-full rounded bg-slate-50 px-2 py-1 text-sm ring-1 ring-slate-200 ring-inset focus:ring-2 focus:ring-sky-500 focus:outline-none dark:bg-slate-900 dark:ring-slate-700';

const htmlType = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' } as const;

function FieldInput({
  id,
  field,
  value,
  onChange,
}: {
  id: string;
  field: Field;
  value: string | string[];
  onChange: (v: string | string[]) => void;
}) {
  const text = Array.isArray(value) ? value.join('\n') : value;
  switch (field.kind) {
    case 'boolean':
      return (
        <input
          id={id}
          type="checkbox"
          checked={text === 'true'}
          onChange={(e) => onChange(String(e.target.checked))}
          className="h-4 w-4"
        />
      );
    case 'enum':
      return (
        <select id={id} value={text} onChange={(e) => onChange(e.target.value)} className={inputClass}>
          {(!field.required || text === '') && <option value="">—</option>}
          {field.options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      );
    case 'multi': {
      const chosen = Array.isArray(value) ? value : [];
      return (
        <div id={id} role="group" className="flex flex-wrap gap-3">
          {field.options.map((o) => (
            <label key={o.value} className="flex items-center gap-1 text-sm">
              <input
                type="checkbox"
                checked={chosen.includes(o.value)}
                onChange={(e) =>
                  onChange(e.target.checked ? [...chosen, o.value] : chosen.filter((v) => v !== o.value))
                }
              />
              {o.label}
            </label>
          ))}
        </div>
      );
    }
    case 'array':
    case 'json':
      return (
        <textarea
          id={id}
          rows={field.kind === 'json' ? 4 : 3}
          value={text}
          onChange={(e) => onChange(e.target.value)}
          className={`${inputClass} font-mono text-xs`}
          spellCheck={false}
          placeholder={field.kind === 'array' ? `one ${field.items} per line` : 'JSON'}
        />
      );
    case 'string':
      // date-time stays a text input: datetime-local cannot say a time zone, and a receiver needs one.
      return (
        <input
          id={id}
          type={field.format && field.format !== 'date-time' ? htmlType[field.format] : 'text'}
          value={text}
          onChange={(e) => onChange(e.target.value)}
          className={inputClass}
          placeholder={field.format === 'date-time' ? '2026-11-30T10:00:00Z' : undefined}
        />
      );
    default:
      return (
        <input
          id={id}
          value={text}
          onChange={(e) => onChange(e.target.value)}
          inputMode="decimal"
          className={`${inputClass} font-mono`}
        />
      );
  }
}

const kindLabel = (field: Field) =>
  field.kind === 'array'
    ? `${field.items}[]`
    : field.kind === 'multi'
      ? 'choose any'
      : field.kind === 'string' && field.format
        ? field.format
        : field.kind;

/** The inputs for a schema's fields, with labels, hints and each field's error. */
export function SchemaFields({
  fields,
  values,
  errors,
  onChange,
  idPrefix,
}: {
  fields: Field[];
  values: FormValues;
  errors: Record<string, string>;
  onChange: (name: string, value: string | string[]) => void;
  idPrefix: string;
}) {
  return (
    <>
      {fields.map((field) => {
        const id = `${idPrefix}-${field.name}`;
        return (
          <div key={field.name} className="space-y-1">
            <label htmlFor={id} className="flex items-baseline gap-2 text-sm font-medium">
              {field.title}
              {field.required && <span className="text-red-600">*</span>}
              <span className="font-mono text-[11px] font-normal text-slate-500">{kindLabel(field)}</span>
            </label>
            <FieldInput
              id={id}
              field={field}
              value={values[field.name] ?? ''}
              onChange={(v) => onChange(field.name, v)}
            />
            {field.description && <p className="text-xs text-slate-500">{field.description}</p>}
            {errors[field.name] && <p className="text-xs text-red-600">{errors[field.name]}</p>}
          </div>
        );
      })}
    </>
  );
}
