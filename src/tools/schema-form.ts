/** A form field read from a JSON Schema property; anything we cannot draw as a field is edited as raw JSON. */
export type Field =
  | {
      kind: 'string' | 'number' | 'integer';
      name: string;
      title: string;
      description?: string;
      required: boolean;
      default?: unknown;
      minimum?: number;
      maximum?: number;
    }
  | {
      kind: 'boolean';
      name: string;
      title: string;
      description?: string;
      required: boolean;
      default?: unknown;
    }
  | {
      kind: 'enum';
      name: string;
      title: string;
      description?: string;
      required: boolean;
      default?: unknown;
      options: Array<{ value: string; label: string }>;
    }
  | {
      kind: 'array';
      name: string;
      title: string;
      description?: string;
      required: boolean;
      default?: unknown;
      items: 'string' | 'number' | 'integer' | 'boolean';
    }
  | { kind: 'json'; name: string; title: string; description?: string; required: boolean; default?: unknown };

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);

function enumOptions(schema: Obj): Array<{ value: string; label: string }> | undefined {
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) {
    return (schema.enum as string[]).map((v) => ({ value: v, label: v }));
  }
  const variants = Array.isArray(schema.oneOf)
    ? schema.oneOf
    : Array.isArray(schema.anyOf)
      ? schema.anyOf
      : undefined;
  if (variants?.every((v) => isObject(v) && typeof v.const === 'string')) {
    return (variants as Obj[]).map((v) => ({
      value: v.const as string,
      label: typeof v.title === 'string' ? v.title : (v.const as string),
    }));
  }
  return undefined;
}

export function fieldsFromSchema(schema: unknown): Field[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [],
  );
  return Object.entries(schema.properties).map(([name, raw]): Field => {
    const prop = isObject(raw) ? raw : {};
    const base = {
      name,
      title: typeof prop.title === 'string' ? prop.title : name,
      description: typeof prop.description === 'string' ? prop.description : undefined,
      required: required.has(name),
      default: prop.default,
    };
    const options = enumOptions(prop);
    if (options) return { ...base, kind: 'enum', options };
    const type = prop.type;
    if (type === 'string' || type === 'number' || type === 'integer') {
      return {
        ...base,
        kind: type,
        minimum: typeof prop.minimum === 'number' ? prop.minimum : undefined,
        maximum: typeof prop.maximum === 'number' ? prop.maximum : undefined,
      };
    }
    if (type === 'boolean') return { ...base, kind: 'boolean' };
    if (
      type === 'array' &&
      isObject(prop.items) &&
      typeof prop.items.type === 'string' &&
      SCALARS.has(prop.items.type)
    ) {
      return {
        ...base,
        kind: 'array',
        items: prop.items.type as 'string' | 'number' | 'integer' | 'boolean',
      };
    }
    return { ...base, kind: 'json' };
  });
}

/** The text a field starts with: its default, written the way the field's input reads it back. */
export function initialText(field: Field): string {
  if (field.default === undefined) return field.kind === 'boolean' ? 'false' : '';
  if (field.kind === 'json') return JSON.stringify(field.default, null, 2);
  if (field.kind === 'array') return Array.isArray(field.default) ? field.default.map(String).join('\n') : '';
  return String(field.default);
}

function scalar(
  kind: 'string' | 'number' | 'integer' | 'boolean',
  text: string,
): { value?: unknown; error?: string } {
  if (kind === 'string') return { value: text };
  if (kind === 'boolean')
    return text === 'true' || text === 'false' ? { value: text === 'true' } : { error: 'true or false' };
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) return { error: 'a number' };
  if (kind === 'integer' && !Number.isInteger(n)) return { error: 'a whole number' };
  return { value: n };
}

/** Turns the form's texts into tools/call arguments; empty optional fields are left out. */
export function buildArguments(
  fields: Field[],
  texts: Record<string, string>,
): { args: Record<string, unknown>; errors: Record<string, string> } {
  const args: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const text = texts[field.name] ?? initialText(field);
    if (text.trim() === '' && field.kind !== 'boolean' && field.kind !== 'string') {
      if (field.required) errors[field.name] = 'required';
      continue;
    }
    if (field.kind === 'string' && text === '') {
      if (field.required) errors[field.name] = 'required';
      continue;
    }
    if (field.kind === 'json') {
      try {
        args[field.name] = JSON.parse(text);
      } catch {
        errors[field.name] = 'not valid JSON';
      }
      continue;
    }
    if (field.kind === 'enum') {
      args[field.name] = text;
      continue;
    }
    if (field.kind === 'array') {
      const parts = text
        .split('\n')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((s) => scalar(field.items, s));
      const bad = parts.find((p) => p.error);
      if (bad) errors[field.name] = `each line must be ${bad.error}`;
      else args[field.name] = parts.map((p) => p.value);
      continue;
    }
    const read = scalar(field.kind, text);
    if (read.error) {
      errors[field.name] = `must be ${read.error}`;
      continue;
    }
    if (typeof read.value === 'number') {
      if ('minimum' in field && field.minimum !== undefined && read.value < field.minimum)
        errors[field.name] = `at least ${field.minimum}`;
      if ('maximum' in field && field.maximum !== undefined && read.value > field.maximum)
        errors[field.name] = `at most ${field.maximum}`;
    }
    args[field.name] = read.value;
  }
  return { args, errors };
}
