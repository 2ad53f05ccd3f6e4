import { isObject, type Obj } from '../mcp/json';
/**
 * Forms from JSON Schema: a tool's inputSchema and an elicitation's requestedSchema (a flat object of
 * primitives, per MCP). Whatever cannot be drawn as a field is edited as raw JSON.
 */
interface FieldBase {
  name: string;
  title: string;
  description?: string;
  required: boolean;
  default?: unknown;
}
export interface Option {
  value: string;
  label: string;
}
export type StringFormat = 'email' | 'uri' | 'date' | 'date-time';
export type Field =
  | (FieldBase & { kind: 'string'; format?: StringFormat; minLength?: number; maxLength?: number })
  | (FieldBase & { kind: 'number' | 'integer'; minimum?: number; maximum?: number })
  | (FieldBase & { kind: 'boolean' })
  | (FieldBase & { kind: 'enum'; options: Option[] })
  | (FieldBase & { kind: 'multi'; options: Option[]; minItems?: number; maxItems?: number })
  | (FieldBase & { kind: 'array'; items: 'string' | 'number' | 'integer' | 'boolean' })
  | (FieldBase & { kind: 'json' });

/** What the inputs hold: text for most fields, the chosen values for a multi-select. */
export type FormValues = Record<string, string | string[]>;

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);
const FORMATS = new Set<string>(['email', 'uri', 'date', 'date-time']);

/** enum (with the legacy enumNames), or oneOf/anyOf of {const, title}: every way MCP spells a choice. */
function options(schema: Obj): Option[] | undefined {
  if (
    Array.isArray(schema.enum) &&
    schema.enum.length > 0 &&
    schema.enum.every((v) => typeof v === 'string')
  ) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return (schema.enum as string[]).map((v, i) => ({
      value: v,
      label: typeof names[i] === 'string' ? names[i] : v,
    }));
  }
  const variants = Array.isArray(schema.oneOf)
    ? schema.oneOf
    : Array.isArray(schema.anyOf)
      ? schema.anyOf
      : undefined;
  if (variants && variants.length > 0 && variants.every((v) => isObject(v) && typeof v.const === 'string')) {
    return (variants as Obj[]).map((v) => ({
      value: v.const as string,
      label: typeof v.title === 'string' ? v.title : (v.const as string),
    }));
  }
  return undefined;
}

function fieldFrom(name: string, prop: Obj, required: boolean): Field {
  const base: FieldBase = {
    name,
    title: typeof prop.title === 'string' ? prop.title : name,
    description: typeof prop.description === 'string' ? prop.description : undefined,
    required,
    default: prop.default,
  };
  const choice = options(prop);
  if (choice) return { ...base, kind: 'enum', options: choice };
  switch (prop.type) {
    case 'string':
      return {
        ...base,
        kind: 'string',
        format:
          typeof prop.format === 'string' && FORMATS.has(prop.format)
            ? (prop.format as StringFormat)
            : undefined,
        minLength: num(prop.minLength),
        maxLength: num(prop.maxLength),
      };
    case 'number':
    case 'integer':
      return { ...base, kind: prop.type, minimum: num(prop.minimum), maximum: num(prop.maximum) };
    case 'boolean':
      return { ...base, kind: 'boolean' };
    case 'array': {
      const items = isObject(prop.items) ? prop.items : {};
      const itemChoice = options(items);
      if (itemChoice)
        return {
          ...base,
          kind: 'multi',
          options: itemChoice,
          minItems: num(prop.minItems),
          maxItems: num(prop.maxItems),
        };
      if (typeof items.type === 'string' && SCALARS.has(items.type)) {
        return { ...base, kind: 'array', items: items.type as 'string' | 'number' | 'integer' | 'boolean' };
      }
      return { ...base, kind: 'json' };
    }
    default:
      return { ...base, kind: 'json' };
  }
}

export function fieldsFromSchema(schema: unknown): Field[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [],
  );
  return Object.entries(schema.properties).map(([name, raw]) =>
    fieldFrom(name, isObject(raw) ? raw : {}, required.has(name)),
  );
}

/** The value a field starts with: its default, written the way its input reads it back. */
export function initialValue(field: Field): string | string[] {
  const d = field.default;
  switch (field.kind) {
    case 'multi':
      return Array.isArray(d) ? d.filter((v): v is string => typeof v === 'string') : [];
    case 'boolean':
      return d === true ? 'true' : 'false';
    case 'json':
      return d === undefined ? '' : JSON.stringify(d, null, 2);
    case 'array':
      return Array.isArray(d) ? d.map(String).join('\n') : '';
    default:
      return d === undefined ? '' : String(d);
  }
}

export const initialValues = (fields: Field[]): FormValues =>
  Object.fromEntries(fields.map((f) => [f.name, initialValue(f)]));

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

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function formatError(format: StringFormat | undefined, text: string): string | undefined {
  switch (format) {
    case 'email':
      return EMAIL.test(text) ? undefined : 'an email address';
    case 'uri':
      try {
        new URL(text);
        return undefined;
      } catch {
        return 'a URI';
      }
    case 'date':
      return DATE.test(text) && !Number.isNaN(Date.parse(text)) ? undefined : 'a date (YYYY-MM-DD)';
    case 'date-time':
      return Number.isNaN(Date.parse(text)) ? 'a date and time' : undefined;
    default:
      return undefined;
  }
}

function readField(
  field: Field,
  raw: string | string[],
): { value?: unknown; error?: string; skip?: boolean } {
  if (field.kind === 'multi') {
    const chosen = Array.isArray(raw) ? raw : [];
    if (chosen.length === 0 && !field.required && field.minItems === undefined) return { skip: true };
    if (field.minItems !== undefined && chosen.length < field.minItems)
      return { error: `choose at least ${field.minItems}` };
    if (field.maxItems !== undefined && chosen.length > field.maxItems)
      return { error: `choose at most ${field.maxItems}` };
    if (chosen.length === 0 && field.required) return { error: 'required' };
    return { value: chosen };
  }
  const text = Array.isArray(raw) ? raw.join('\n') : raw;
  if (field.kind === 'boolean') return scalar('boolean', text);
  if (text.trim() === '' && (field.kind !== 'string' || text === ''))
    return field.required ? { error: 'required' } : { skip: true };
  switch (field.kind) {
    case 'json':
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { error: 'not valid JSON' };
      }
    case 'enum':
      return field.options.some((o) => o.value === text)
        ? { value: text }
        : { error: 'choose one of the options' };
    case 'array': {
      const parts = text
        .split('\n')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((s) => scalar(field.items, s));
      const bad = parts.find((p) => p.error);
      return bad ? { error: `each line must be ${bad.error}` } : { value: parts.map((p) => p.value) };
    }
    case 'string': {
      if (field.minLength !== undefined && text.length < field.minLength)
        return { error: `at least ${field.minLength} characters` };
      if (field.maxLength !== undefined && text.length > field.maxLength)
        return { error: `at most ${field.maxLength} characters` };
      const bad = formatError(field.format, text);
      return bad ? { error: `must be ${bad}` } : { value: text };
    }
    default: {
      const read = scalar(field.kind, text);
      if (read.error) return { error: `must be ${read.error}` };
      const n = read.value as number;
      if (field.minimum !== undefined && n < field.minimum) return { error: `at least ${field.minimum}` };
      if (field.maximum !== undefined && n > field.maximum) return { error: `at most ${field.maximum}` };
      return read;
    }
  }
}

/** Turns the inputs into the object to send; empty optional fields are left out. */
export function buildValues(
  fields: Field[],
  values: FormValues,
): { values: Record<string, unknown>; errors: Record<string, string> } {
  const out: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const read = readField(field, values[field.name] ?? initialValue(field));
    if (read.error) errors[field.name] = read.error;
    else if (!read.skip) out[field.name] = read.value;
  }
  return { values: out, errors };
}
