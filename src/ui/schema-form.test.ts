import { describe, expect, it } from 'vitest';
import { buildValues, fieldsFromSchema, initialValue, initialValues } from './schema-form';

const toolSchema = {
  type: 'object',
  properties: {
    label: { type: 'string', default: 'job' },
    steps: { type: 'integer', minimum: 1, maximum: 10, default: 4 },
    ratio: { type: 'number' },
    loud: { type: 'boolean', default: true },
    colour: { type: 'string', enum: ['red', 'green'] },
    tags: { type: 'array', items: { type: 'string' } },
    counts: { type: 'array', items: { type: 'integer' } },
    extra: { type: 'object', default: { a: 1 } },
  },
  required: ['ratio'],
};

/** An elicitation requestedSchema with every shape MCP 2025-11-25 allows, each with a default. */
const elicitationSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2, maxLength: 20, default: 'Ada' },
    email: { type: 'string', format: 'email', default: 'ada@example.com' },
    site: { type: 'string', format: 'uri', default: 'https://example.com' },
    born: { type: 'string', format: 'date', default: '1815-12-10' },
    at: { type: 'string', format: 'date-time', default: '2026-11-30T10:00:00Z' },
    age: { type: 'integer', minimum: 0, maximum: 150, default: 36 },
    score: { type: 'number', minimum: 0, maximum: 1, default: 0.5 },
    sure: { type: 'boolean', default: false },
    plain: { type: 'string', enum: ['a', 'b'], default: 'b' },
    legacy: { type: 'string', enum: ['x', 'y'], enumNames: ['Ex', 'Why'], default: 'x' },
    titled: {
      type: 'string',
      oneOf: [
        { const: 'p', title: 'Programming' },
        { const: 's', title: 'Snake' },
      ],
      default: 's',
    },
    many: {
      type: 'array',
      items: { type: 'string', enum: ['r', 'g', 'b'] },
      minItems: 1,
      maxItems: 2,
      default: ['r'],
    },
    manyTitled: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'one', title: 'One' },
          { const: 'two', title: 'Two' },
        ],
      },
      default: ['two'],
    },
  },
  required: ['name', 'many'],
};

describe('fieldsFromSchema', () => {
  it('reads every kind a tool schema uses', () => {
    expect(fieldsFromSchema(toolSchema).map((f) => [f.name, f.kind])).toEqual([
      ['label', 'string'],
      ['steps', 'integer'],
      ['ratio', 'number'],
      ['loud', 'boolean'],
      ['colour', 'enum'],
      ['tags', 'array'],
      ['counts', 'array'],
      ['extra', 'json'],
    ]);
  });

  it('reads every elicitation shape: formats, bounds, plain, legacy and titled enums, multi-selects', () => {
    const fields = fieldsFromSchema(elicitationSchema);
    expect(fields.map((f) => f.kind)).toEqual([
      'string',
      'string',
      'string',
      'string',
      'string',
      'integer',
      'number',
      'boolean',
      'enum',
      'enum',
      'enum',
      'multi',
      'multi',
    ]);
    const byName = Object.fromEntries(fields.map((f) => [f.name, f]));
    expect(byName.email).toMatchObject({ format: 'email' });
    expect(byName.name).toMatchObject({ minLength: 2, maxLength: 20, required: true, title: 'Name' });
    expect(byName.legacy).toMatchObject({
      options: [
        { value: 'x', label: 'Ex' },
        { value: 'y', label: 'Why' },
      ],
    });
    expect(byName.titled).toMatchObject({
      options: [
        { value: 'p', label: 'Programming' },
        { value: 's', label: 'Snake' },
      ],
    });
    expect(byName.many).toMatchObject({ kind: 'multi', minItems: 1, maxItems: 2 });
    expect(byName.manyTitled).toMatchObject({
      options: [
        { value: 'one', label: 'One' },
        { value: 'two', label: 'Two' },
      ],
    });
  });

  it('tolerates schemas that are not objects', () => {
    expect(fieldsFromSchema(null)).toEqual([]);
    expect(fieldsFromSchema({ type: 'object' })).toEqual([]);
    expect(fieldsFromSchema({ properties: { x: 5 } })[0]?.kind).toBe('json');
  });
});

describe('buildValues', () => {
  it('applies every default, of every type', () => {
    const fields = fieldsFromSchema(elicitationSchema);
    const { values, errors } = buildValues(fields, initialValues(fields));
    expect(errors).toEqual({});
    expect(values).toEqual({
      name: 'Ada',
      email: 'ada@example.com',
      site: 'https://example.com',
      born: '1815-12-10',
      at: '2026-11-30T10:00:00Z',
      age: 36,
      score: 0.5,
      sure: false,
      plain: 'b',
      legacy: 'x',
      titled: 's',
      many: ['r'],
      manyTitled: ['two'],
    });
  });

  it('validates formats, lengths, bounds and choice counts before anything is sent', () => {
    const fields = fieldsFromSchema(elicitationSchema);
    const { errors } = buildValues(fields, {
      ...initialValues(fields),
      name: 'A',
      email: 'not-an-email',
      site: 'nope',
      born: '10/12/1815',
      at: 'soon',
      age: '200',
      score: 'x',
      plain: 'z',
      many: ['r', 'g', 'b'],
    });
    expect(errors).toEqual({
      name: 'at least 2 characters',
      email: 'must be an email address',
      site: 'must be a URI',
      born: 'must be a date (YYYY-MM-DD)',
      at: 'must be a date and time',
      age: 'at most 150',
      score: 'must be a number',
      plain: 'choose one of the options',
      many: 'choose at most 2',
    });
  });

  it('requires required fields, leaves empty optional ones out', () => {
    const fields = fieldsFromSchema(elicitationSchema);
    const empty = Object.fromEntries(
      fields.map((f) => [f.name, f.kind === 'multi' ? [] : f.kind === 'boolean' ? 'false' : '']),
    );
    const { values, errors } = buildValues(fields, empty);
    expect(errors).toEqual({ name: 'required', many: 'choose at least 1' });
    expect(values).toEqual({ sure: false });
  });

  it('reads tool arrays one item per line, checks their types, and parses JSON', () => {
    const fields = fieldsFromSchema(toolSchema);
    const { values, errors } = buildValues(fields, {
      ...initialValues(fields),
      ratio: 'x',
      steps: '11',
      counts: '1\n2.5',
      tags: 'a\n b \n',
      extra: '{',
    });
    expect(values.tags).toEqual(['a', 'b']);
    expect(errors).toEqual({
      ratio: 'must be a number',
      steps: 'at most 10',
      counts: 'each line must be a whole number',
      extra: 'not valid JSON',
    });
  });

  it('writes tool defaults back as text', () => {
    expect(fieldsFromSchema(toolSchema).map(initialValue)).toEqual([
      'job',
      '4',
      '',
      'true',
      '',
      '',
      '',
      '{\n  "a": 1\n}',
    ]);
  });
});
