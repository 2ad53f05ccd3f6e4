import { useMemo, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { describeSources } from '../core/timeline-model';
import type { TimelineEntry, TrackedTask } from '../core/store';
import { formatClock, formatMs } from '../core/ttl';

const time = (ms: number) => formatClock(ms, { millis: true });

/** The receiver's lastUpdatedAt in the page's one time format (its own clock), the raw text on hover. */
function ServerTime({ raw }: { raw: string | undefined }) {
  if (raw === undefined) return <>—</>;
  const ms = Date.parse(raw);
  return <span title={raw}>{Number.isFinite(ms) ? formatClock(ms, { millis: true }) : raw}</span>;
}

function statusCell(entry: TimelineEntry): string {
  switch (entry.kind) {
    case 'observation':
      return entry.status ?? '(ignored)';
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

type Row = { entry: TimelineEntry; source: string; changed: boolean };

/** Newest first, each with where it came from and whether its statusMessage changed. */
function tableRows(task: TrackedTask): Row[] {
  const pollsShown = task.entries.filter(
    (e) => (e.kind === 'observation' || e.kind === 'error') && e.source === 'poll',
  ).length;
  const labels = describeSources(task.entries, task.pollCount - pollsShown);
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

/** Every observation, newest first, with the normaliser's warnings spelled out; only visible rows are drawn. */
export function ObservationTable({ task }: { task: TrackedTask }) {
  const rows = useMemo(() => tableRows(task), [task]);
  const scrollRef = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 25,
    overscan: 12,
    getItemKey: (index) => rows.length - index,
  });
  const items = virtualizer.getVirtualItems();
  const padTop = items[0]?.start ?? 0;
  const padBottom = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  return (
    <div
      ref={scrollRef}
      className="max-h-96 overflow-auto rounded border border-slate-200 dark:border-slate-800"
    >
      <table className="w-full text-left text-xs" data-testid="observations">
        <thead className="sticky top-0 bg-slate-50 text-slate-500 dark:bg-slate-900">
          <tr>
            <th className="px-2 py-1 font-medium">local time</th>
            <th className="px-2 py-1 font-medium">server lastUpdatedAt</th>
            <th className="px-2 py-1 font-medium">source</th>
            <th className="px-2 py-1 font-medium">status</th>
            <th
              className="px-2 py-1 text-right font-medium"
              title="The pollInterval the receiver asked for in this answer"
            >
              pollInterval
            </th>
            <th className="px-2 py-1 font-medium">statusMessage / detail</th>
            <th className="px-2 py-1 text-right font-medium">latency</th>
          </tr>
        </thead>
        <tbody className="font-mono">
          {padTop > 0 && (
            <tr aria-hidden style={{ height: padTop }}>
              <td colSpan={7} />
            </tr>
          )}
          {items.map((item) => {
            const row = rows[item.index];
            if (!row) return null;
            const { entry, source, changed } = row;
            return (
              <tr
                key={item.key}
                data-index={item.index}
                ref={virtualizer.measureElement}
                data-kind={entry.kind}
                className="border-t border-slate-100 align-top dark:border-slate-900"
              >
                <td className="px-2 py-1 whitespace-nowrap text-slate-500">{time(entry.at)}</td>
                <td className="px-2 py-1 whitespace-nowrap text-slate-500">
                  {entry.kind === 'observation' ? <ServerTime raw={entry.lastUpdatedAt} /> : ''}
                </td>
                <td className="px-2 py-1 whitespace-nowrap" data-testid="obs-source">
                  {source}
                </td>
                <td className="px-2 py-1 whitespace-nowrap">{statusCell(entry)}</td>
                <td
                  className="px-2 py-1 text-right whitespace-nowrap text-slate-500"
                  data-testid="obs-poll-interval"
                >
                  {entry.kind === 'observation' && entry.pollInterval !== undefined
                    ? formatMs(entry.pollInterval)
                    : ''}
                </td>
                <td className="px-2 py-1 break-words whitespace-pre-wrap">
                  {entry.kind === 'observation' && (changed ? entry.statusMessage : '')}
                  {entry.kind === 'input' && entry.detail}
                  {entry.kind === 'progress' && entry.message}
                  {entry.kind === 'log' && (
                    <>
                      {entry.logger && <span className="text-slate-500">{entry.logger}: </span>}
                      {entry.text}
                    </>
                  )}
                  {(entry.kind === 'error' ||
                    entry.kind === 'purged' ||
                    (entry.kind === 'result' && entry.error)) && (
                    <span className="text-red-600 dark:text-red-400">{entry.error?.message}</span>
                  )}
                  {entry.kind === 'error' && entry.retryInMs !== undefined && (
                    <span className="text-slate-500">
                      {' '}
                      — next try in {Math.round(entry.retryInMs / 1000)} s
                    </span>
                  )}
                  {(entry.kind === 'observation' || entry.kind === 'result') &&
                    entry.warnings.map((w, j) => (
                      <div key={j} className="text-amber-700 dark:text-amber-400">
                        ⚠ {source}: {w.message}
                      </div>
                    ))}
                </td>
                <td className="px-2 py-1 text-right whitespace-nowrap text-slate-500">
                  {'latencyMs' in entry && entry.latencyMs !== undefined
                    ? `${Math.round(entry.latencyMs)} ms`
                    : ''}
                </td>
              </tr>
            );
          })}
          {padBottom > 0 && (
            <tr aria-hidden style={{ height: padBottom }}>
              <td colSpan={7} />
            </tr>
          )}
        </tbody>
      </table>
      {task.droppedEntries > 0 && (
        <p className="px-2 py-1 text-xs text-slate-500">{task.droppedEntries} older entries not kept.</p>
      )}
    </div>
  );
}
