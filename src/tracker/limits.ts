/** Limits the tracker holds against receivers that flood it; the page quotes them, so they live apart. */

/** Pushes for one task closer together than this are merged as one, the latest winning. */
export const PUSH_COALESCE_MS = 100;
/** Tasks a receiver's pushes may add to the tracked set per minute; more are counted and offered. */
export const AUTO_TRACK_PER_MINUTE = 200;
/** Untracked ids remembered for "track them"; beyond this they are only counted. */
export const MAX_SEEN_UNTRACKED = 5000;
/** Tasks polled on their own; past this, listed or pushed tasks are kept but polled only when opened. */
export const MAX_POLLED_TASKS = 5000;
