import { createRequire } from 'node:module';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import draft6 from 'ajv/dist/refs/json-schema-draft-06.json';

/**
 * A validator for HAR 1.2 from har-schema, which ships one JSON Schema per HAR object (draft-06), each with an
 * `$id` like "log.json#" that the others `$ref`: all are registered so the references resolve, and har.json is
 * the entry point. `strict: false`: the schemas carry keywords of their own (`min`, `optional`).
 */
export function harValidator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addMetaSchema(draft6);
  addFormats(ajv);
  const schemas = createRequire(import.meta.url)('har-schema') as Record<string, object>;
  for (const schema of Object.values(schemas)) ajv.addSchema(schema);
  const validate = ajv.getSchema('har.json');
  if (!validate) throw new Error('har-schema has no har.json');
  return validate;
}
