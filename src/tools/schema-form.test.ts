import { describe, expect, it } from 'vitest';
import { buildArguments, fieldsFromSchema, initialText } from './schema-form';

const schema = {
  type: 'object',
  properties: {
    label: { type: 'string', default: 'job' },
    steps: { type: 'integer', minimum: 1, maximum: 10, default: 4 },
    ratio: { type: 'number' },
    loud: { type: 'boolean', default: true },
    colour: { type: 'string', enum: ['red', 'green'] },
    mood: {
      type: 'string',
      oneOf: [
        { const: 'ok', title: 'Fine' },
        { const: 'meh', title: 'So-so' },
      ],
    },
    tags: { type: 'array', items: { type: 'string' } },
    counts: { type: 'array', items: { type: 'integer' } },
    extra: { type: 'object', default: { a: 1 } },
  },
  required: ['ratio'],
};

describe('fieldsFromSchema', () => {
  it('reads every kind, enums and titled enums included', () => {
    const fields = fieldsFromSchema(schema);
    expect(fields.map((f) => [f.name, f.kind])).toEqual([
      ['label', 'string'],
      ['steps', 'integer'],
      ['ratio', 'number'],
      ['loud', 'boolean'],
      ['colour', 'enum'],
      ['mood', 'enum'],
      ['tags', 'array'],
      ['counts', 'array'],
      ['extra', 'json'],
    ]);
    const mood = fields.find((f) => f.name === 'mood');
    expect(mood?.kind === 'enum' && mood.options).toEqual([
      { value: 'ok', label: 'Fine' },
      { value: 'meh', label: 'So-so' },
    ]);
    expect(fields.find((f) => f.name === 'ratio')?.required).toBe(true);
  });
  it('tolerates schemas that are not objects', () => {
    expect(fieldsFromSchema(null)).toEqual([]);
    expect(fieldsFromSchema({ type: 'object' })).toEqual([]);
  });
});

describe('buildArguments', () => {
  const fields = fieldsFromSchema(schema);
  it('applies defaults and leaves empty optional fields out', () => {
    const { args, errors } = buildArguments(fields, { ratio: '0.5' });
    expect(errors).toEqual({});
    expect(args).toEqual({ label: 'job', steps: 4, ratio: 0.5, loud: true, extra: { a: 1 } });
  });
  it('reads arrays one item per line and checks bounds, types and JSON', () => {
    const { args, errors } = buildArguments(fields, {
      ratio: 'x',
      steps: '11',
      counts: '1\n2.5',
      tags: 'a\n b \n',
      extra: '{',
    });
    expect(args.tags).toEqual(['a', 'b']);
    expect(errors).toEqual({
      ratio: 'must be a number',
      steps: 'at most 10',
      counts: 'each line must be a whole number',
      extra: 'not valid JSON',
    });
  });
  it('requires required fields', () => {
    expect(buildArguments(fields, {}).errors).toEqual({ ratio: 'required' });
  });
  it('writes defaults back as text', () => {
    expect(fields.map(initialText)).toEqual(['job', '4', '', 'true', '', '', '', '', '{\n  "a": 1\n}']);
  });
});
