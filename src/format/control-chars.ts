/**
 * Receiver text on its way to a terminal, a Markdown cell or a log line: control characters could move the
 * cursor, recolour the screen or end a table row. One home, so every place strips the same set.
 */

// eslint-disable-next-line no-control-regex -- control characters are what is being removed
const ALL_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;
// eslint-disable-next-line no-control-regex -- control characters are what is being removed (tab and line feed stay)
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** On one line: every run of control characters and line breaks becomes one space. */
export function oneLine(text: string): string {
  return text.replace(ALL_CONTROLS, ' ');
}

/** Lines and tabs kept; every other control character becomes `replacement`. */
export function keepLines(text: string, replacement = ''): string {
  return text.replace(CONTROLS_BUT_LINES, replacement);
}
