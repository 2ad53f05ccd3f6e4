import type { ReportCard } from './report-types';

/** The card as JSON, exactly the ReportCard the page shows (for tools, diffing two runs, attaching to an issue). */
export function reportJson(card: ReportCard): string {
  return `${JSON.stringify(card, null, 2)}\n`;
}

/** A file name for a card: the receiver's host and the time, safe on every file system. */
export function reportFileName(card: ReportCard, extension: 'md' | 'json'): string {
  let host = 'receiver';
  try {
    host = new URL(card.receiver.url, 'http://localhost').host || host;
  } catch {
    // An URL the page could not read: the generic name does.
  }
  const stamp = new Date(card.generatedAt).toISOString().replace(/[:.]/g, '-');
  return `taskscope-report-${host.replace(/[^A-Za-z0-9.-]+/g, '_')}-${stamp}.${extension}`;
}
