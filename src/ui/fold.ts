/** Text longer than this (or with more lines) starts folded to a few lines. */
const FOLD_CHARS = 280;
const FOLD_LINES = 5;

export function isLongText(text: string): boolean {
  return text.length > FOLD_CHARS || text.split('\n').length > FOLD_LINES;
}
