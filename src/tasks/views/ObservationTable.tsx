import { useEffect, useMemo, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { TrackedTask } from '../../tracker/task-store';
import { formatClock, formatMs } from '../../format/time';
import { CopyButton } from '../../ui/CopyButton';
import { observationsText, statusCell, tableRows } from './observation-text';
import { CANCEL_ACKNOWLEDGED, isCancelAcknowledgement, RESULT_NAME } from '../../tracker/timeline-model';
import { useConnection } from '../../state/connection-store';
import { observedRowSize, observeScrollerSize, scrollUnlessNew } from '../../ui/virtual-sizes';

const time = (ms: number) => formatClock(ms, { millis: true });

/** The table's scroller at most (max-h-96): the rows drawn before it has been measured. */
const TABLE_MAX_PX = 384;

/** The receiver's lastUpdatedAt in the page's one time format (its own clock), the raw text on hover. */
function ServerTime({ raw }: { raw: string | undefined }) {
  if (raw === undefined) return <>—</>;
  const ms = Date.parse(raw);
  return <span title={raw}>{Number.isFinite(ms) ? formatClock(ms, { millis: true }) : raw}</span>;
}

/** The row whose entry is nearest in time to `at`. */
function nearestRow(rows: ReturnType<typeof tableRows>, at: number | undefined): number | undefined {
  if (at === undefined || rows.length === 0) return undefined;
  let best = 0;
  rows.forEach((row, i) => {
    if (Math.abs(row.entry.at - at) < Math.abs((rows[best]?.entry.at ?? Infinity) - at)) best = i;
  });
  return best;
}

/** Every observation, newest first, with the normaliser's warnings spelled out; only visible rows are drawn. */
export function ObservationTable({ task, focusAt }: { task: TrackedTask; focusAt?: number }) {
  const era = useConnection((s) => s.era ?? s.support?.era ?? '2025-11-25');
  const rows = useMemo(() => tableRows(task, RESULT_NAME[era]), [task, era]);
  const scrollRef = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 25,
    overscan: 12,
    getItemKey: (index) => rows.length - index,
    // Mounted as a task opens: sizes come from the ResizeObserver, after the browser's own layout, never read
    // in React's commit (which would lay the page out there, and again once the rows move), nor written.
    initialRect: { width: 0, height: TABLE_MAX_PX },
    observeElementRect: observeScrollerSize,
    measureElement: observedRowSize,
    scrollToFn: scrollUnlessNew,
  });
  // Opened at a moment (the report card's first offence): the entry nearest it, scrolled to and marked.
  const focusIndex = useMemo(() => nearestRow(rows, focusAt), [rows, focusAt]);
  useEffect(() => {
    if (focusIndex === undefined) return;
    scrollRef.current?.scrollIntoView({ block: 'nearest' });
    virtualizer.scrollToIndex(focusIndex, { align: 'center' });
    // Only when the moment asked for changes: new rows arriving must not pull the view back.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [focusAt]);
  const items = virtualizer.getVirtualItems();
  const padTop = items[0]?.start ?? 0;
  const padBottom = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  return (
    <div className="space-y-1">
      <div className="flex justify-end">
        <CopyButton
          text={() => observationsText(rows)}
          label="Copy table"
          title="Copy the observations as text (tab-separated)"
          testId="copy-observations"
        />
      </div>
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
                  data-focused={item.index === focusIndex || undefined}
                  className={`border-t border-slate-100 align-top dark:border-slate-900 ${item.index === focusIndex ? 'bg-amber-50 dark:bg-amber-950/40' : ''}`}
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
                    {isCancelAcknowledgement(entry) && (
                      <span className="text-slate-500" data-testid="cancel-acknowledged">
                        {CANCEL_ACKNOWLEDGED}
                      </span>
                    )}
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
    </div>
  );
}
