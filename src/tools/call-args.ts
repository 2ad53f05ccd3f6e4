import type { Field, FormValues } from '../ui/schema-form';

/** Characters of a call's arguments shown before the view is cut (the whole stays in "Run again"). */
export const ARGS_SHOWN_CHARS = 4000;

/**
 * Arguments as JSON a person reads at a glance: on one line when short, indented when not, and cut at
 * `max` characters with what was left out said.
 */
export function compactJson(value: unknown, max = ARGS_SHOWN_CHARS): { text: string; cut: number } {
  let text: string;
  try {
    const line = JSON.stringify(value) ?? String(value);
    text = line.length <= 100 ? line : JSON.stringify(value, null, 2);
  } catch {
    text = String(value);
  }
  return text.length <= max ? { text, cut: 0 } : { text: text.slice(0, max), cut: text.length - max };
}

/** Left-out argument names said in the form: the first ten, then how many more. */
export const NAMES_SHOWN = 10;
/** Characters of one name shown: a name is whatever key the call carried, of any length. */
export const NAME_SHOWN_CHARS = 60;

/**
 * Argument names as a list a person reads: each quoted (an empty name, or one with a comma or space, stays
 * readable), cut when long, and no more than `max` of them, with how many were left unsaid.
 */
export function sayNames(names: readonly string[], max = NAMES_SHOWN): string {
  const shown = names
    .slice(0, max)
    .map((name) => {
      // By code point, so a cut never splits an emoji; bidi controls out, so no name reorders the sentence.
      const chars = Array.from(name.replace(BIDI_CONTROLS, ''));
      return JSON.stringify(
        chars.length > NAME_SHOWN_CHARS ? `${chars.slice(0, NAME_SHOWN_CHARS).join('')}…` : chars.join(''),
      );
    })
    .join(', ');
  const more = names.length - max;
  return more > 0 ? `${shown} and ${more} more` : shown;
}

const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** One argument written the way its field's input reads it back (the inverse of the form's reading). */
function fieldText(field: Field, value: unknown): string | string[] | undefined {
  switch (field.kind) {
    case 'multi':
      return Array.isArray(value) ? value.map(String) : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? String(value) : undefined;
    case 'array':
      return Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null)
        ? value.map(String).join('\n')
        : undefined;
    case 'json':
      return JSON.stringify(value, null, 2);
    case 'number':
    case 'integer':
      return typeof value === 'number' ? String(value) : undefined;
    default:
      return typeof value === 'string' ? value : undefined;
  }
}

/**
 * The form's inputs for arguments sent before ("Run again"): every argument its field can hold, and the
 * names of those it cannot (not in the tool's schema now, or of another type), so none is lost unsaid.
 */
export function valuesFromArgs(
  fields: readonly Field[],
  args: Record<string, unknown>,
): { values: FormValues; left: string[] } {
  const values: FormValues = {};
  const left: string[] = [];
  const byName = new Map(fields.map((f) => [f.name, f]));
  for (const [name, value] of Object.entries(args)) {
    const field = byName.get(name);
    const text = field ? fieldText(field, value) : undefined;
    if (text === undefined) left.push(name);
    else values[name] = text;
  }
  // A field the call left out was empty (optional), not its default: keep it empty so the same call goes.
  for (const field of fields)
    if (!(field.name in values) && !left.includes(field.name))
      values[field.name] = field.kind === 'multi' ? [] : field.kind === 'boolean' ? 'false' : '';
  return { values, left };
}
