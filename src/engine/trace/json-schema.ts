import { z } from 'zod';
import { traceSchema } from './schema';

/** Where the published schema lives in the repository and, served from public/, on every Taskscope. */
export const TRACE_SCHEMA_PATH = 'public/trace.schema.json';

/**
 * The trace format as JSON Schema (draft 2020-12), for people who read or write traces with other tools. It
 * is generated, never written by hand: the refinements that only code can say (depths, value counts, http URLs,
 * unique task ids) are named in the descriptions, and parseTrace stays the one that decides.
 */
export function traceJsonSchema(): Record<string, unknown> {
  // The file's input shape: what a writer must produce, before parseTrace's transforms.
  return z.toJSONSchema(traceSchema, { io: 'input', target: 'draft-2020-12' });
}
