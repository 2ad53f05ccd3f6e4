/**
 * Writes public/trace.schema.json from the zod schema in src/engine/trace/schema.ts (npm run trace:schema).
 * A unit test fails while the committed file differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';
import { TRACE_SCHEMA_PATH, traceJsonSchema } from '../src/engine/trace/json-schema';

const file = new URL(`../${TRACE_SCHEMA_PATH}`, import.meta.url);
const options = (await resolveConfig(file)) ?? {};
writeFileSync(file, await format(JSON.stringify(traceJsonSchema()), { ...options, parser: 'json' }));
console.log(`wrote ${TRACE_SCHEMA_PATH}`);
