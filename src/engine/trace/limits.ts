/**
 * The trace format's name, version and limits, apart from its schema: the page reads them (a file too large is
 * refused before it is read) without loading the schema and zod, which only the engine and the command need.
 */

export const TRACE_FORMAT = 'taskscope-trace';
export const TRACE_VERSION = 1;

/** A file larger than this is refused before it is parsed: the traffic log alone holds at most 64 MB of bodies. */
export const MAX_TRACE_BYTES = 128 * 1024 * 1024;

export const MAX_TRACE_TASKS = 10_000;
export const MAX_TRACE_ENTRIES_PER_TASK = 2_000;
export const MAX_TRACE_TRAFFIC = 50_000;
export const MAX_TRACE_TOOLS = 10_000;
export const MAX_TRACE_INBOX = 20_000;
