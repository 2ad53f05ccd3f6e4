import { describe, expect, it } from 'vitest';
import { buildValues, fieldsFromSchema } from '../ui/schema-form';
import { compactJson, sayNames, valuesFromArgs } from './call-args';

const schema = {
  type: 'object',
  properties: {
    label: { type: 'string', default: 'job' },
    note: { type: 'string' },
    steps: { type: 'integer', default: 4 },
    fast: { type: 'boolean', default: true },
    mode: { type: 'string', enum: ['a', 'b'] },
    tags: { type: 'array', items: { type: 'string' } },
    picks: { type: 'array', items: { enum: ['x', 'y', 'z'] } },
    extra: { type: 'object' },
  },
  required: ['label'],
};

describe('valuesFromArgs', () => {
  const fields = fieldsFromSchema(schema);

  it('fills the form so that it sends the same call again', () => {
    const args = {
      label: 'again',
      steps: 2,
      fast: false,
      mode: 'b',
      tags: ['one', 'two'],
      picks: ['x', 'z'],
      extra: { deep: [1, { n: null }] },
    };
    const { values, left } = valuesFromArgs(fields, args);
    expect(left).toEqual([]);
    // Fields the call left out stay empty rather than taking their defaults.
    expect(values.note).toBe('');
    expect(buildValues(fields, values)).toEqual({ values: args, errors: {} });
  });

  it('names the arguments it cannot put in a field, instead of dropping them unsaid', () => {
    const { values, left } = valuesFromArgs(fields, { label: 'x', steps: 'many', gone: 1 });
    expect(left).toEqual(['steps', 'gone']);
    expect(values.label).toBe('x');
  });
});

describe('compactJson', () => {
  it('keeps short arguments on one line and indents long ones', () => {
    expect(compactJson({ a: 1, b: 'two' })).toEqual({ text: '{"a":1,"b":"two"}', cut: 0 });
    expect(compactJson({ text: 'x'.repeat(120) }).text).toContain('\n  "text"');
  });

  it('cuts at the cap and says how much was left out', () => {
    const { text, cut } = compactJson({ text: 'x'.repeat(10_000) }, 4000);
    expect(text).toHaveLength(4000);
    expect(cut).toBe(JSON.stringify({ text: 'x'.repeat(10_000) }, null, 2).length - 4000);
  });
});

describe('sayNames', () => {
  it('quotes every name, so an empty one or one with a comma still reads as a name', () => {
    expect(sayNames(['gone', '', 'a, b'])).toBe('"gone", "", "a, b"');
    expect(sayNames([])).toBe('');
  });

  it('says the first ten and how many more', () => {
    const names = Array.from({ length: 13 }, (_, i) => `n${i}`);
    expect(sayNames(names.slice(0, 10))).toBe(
      names
        .slice(0, 10)
        .map((n) => `"${n}"`)
        .join(', '),
    );
    expect(sayNames(names)).toBe(
      `${names
        .slice(0, 10)
        .map((n) => `"${n}"`)
        .join(', ')} and 3 more`,
    );
    expect(sayNames(names, 2)).toBe('"n0", "n1" and 11 more');
  });

  it('cuts a long name', () => {
    const said = sayNames(['x'.repeat(10_000)]);
    expect(said).toBe(`"${'x'.repeat(60)}…"`);
    // By code point: an emoji at the cut stays whole, not half a surrogate pair.
    expect(sayNames(['😀'.repeat(61)])).toBe(`"${'😀'.repeat(60)}…"`);
  });

  it('drops bidi controls, so a name cannot reorder the sentence it sits in', () => {
    expect(sayNames(['\u202eevil\u202c', 'a\u2066b\u2069'])).toBe('"evil", "ab"');
  });
});
