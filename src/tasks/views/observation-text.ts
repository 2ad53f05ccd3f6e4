import { CANCEL_ACKNOWLEDGED, describeSources, isCancelAcknowledgement } from '../../tracker/timeline-model';
import type { TimelineEntry, TrackedTask } from '../../tracker/task-store';
import { formatClock } from '../../format/time';

export function statusCell(entry: TimelineEntry): string {
  switch (entry.kind) {
    case 'observation':
      return entry.status ?? (isCancelAcknowledgement(entry) ? 'acknowledged' : '(ignored)');
    case 'result':
      return entry.outcome;
    case 'input':
      return `input ${entry.phase}`;
    case 'progress':
      return entry.total !== undefined ? `${entry.progress}/${entry.total}` : String(entry.progress);
    case 'log':
      return '';
    default:
      return entry.kind;
  }
}

export type Row = { entry: TimelineEntry; source: string; changed: boolean };

/** Newest first, each with where it came from and whether its statusMessage changed. */
export function tableRows(task: TrackedTask, resultName?: string): Row[] {
  const pollsShown = task.entries.filter(
    (e) => (e.kind === 'observation' || e.kind === 'error') && e.source === 'poll',
  ).length;
  const labels = describeSources(task.entries, task.pollCount - pollsShown, resultName);
  // Show a statusMessage only where it changed, so a column of repeats does not hide the moves.
  const { rows } = task.entries.reduce(
    (acc, entry, i) => {
      const source = labels[i] ?? '';
      const message = entry.kind === 'observation' ? entry.statusMessage : undefined;
      acc.rows.push({ entry, source, changed: message !== undefined && message !== acc.last });
      if (message !== undefined) acc.last = message;
      return acc;
    },
    {
      rows: [] as Row[],
      last: undefined as string | undefined,
    },
  );
  return rows.reverse();
}

const COLUMNS = [
  'local time',
  'server lastUpdatedAt',
  'source',
  'status',
  'pollInterval (ms)',
  'statusMessage / detail',
  'latency (ms)',
];

/** A cell as one field of a tab-separated line: tabs and line breaks in a receiver's text become spaces. */
const field = (value: string | number | undefined) => String(value ?? '').replace(/[\t\r\n]+/g, ' ');

function detail(entry: TimelineEntry, source: string): string {
  const parts: string[] = [];
  if (entry.kind === 'observation' && entry.statusMessage !== undefined) parts.push(entry.statusMessage);
  if (isCancelAcknowledgement(entry)) parts.push(CANCEL_ACKNOWLEDGED);
  if (entry.kind === 'input' && entry.detail) parts.push(entry.detail);
  if (entry.kind === 'progress' && entry.message) parts.push(entry.message);
  if (entry.kind === 'log') parts.push(entry.logger ? `${entry.logger}: ${entry.text}` : entry.text);
  if (entry.kind === 'error' || entry.kind === 'purged' || (entry.kind === 'result' && entry.error))
    if (entry.error?.message) parts.push(entry.error.message);
  if (entry.kind === 'observation' || entry.kind === 'result')
    for (const w of entry.warnings) parts.push(`⚠ ${source}: ${w.message}`);
  return parts.join(' · ');
}

/** The observation table as text: a header line, then one tab-separated line per row, newest first as shown. */
export function observationsText(rows: readonly Row[]): string {
  const lines = rows.map(({ entry, source }) =>
    [
      formatClock(entry.at, { millis: true }),
      entry.kind === 'observation' ? entry.lastUpdatedAt : '',
      source,
      statusCell(entry),
      entry.kind === 'observation' ? entry.pollInterval : '',
      detail(entry, source),
      'latencyMs' in entry && entry.latencyMs !== undefined ? Math.round(entry.latencyMs) : '',
    ]
      .map(field)
      .join('\t'),
  );
  return [COLUMNS.join('\t'), ...lines].join('\n');
}
