import { memo, useCallback, useEffect, useLayoutEffect, useRef } from 'react';
import { focusRing } from '../ui/Button';
import { VirtualRows } from '../ui/VirtualRows';
import { formatClock } from '../format/time';
import type { TrafficLine } from '../engine/traffic-window';
import { indexOfRow } from '../engine/traffic-rows';
import { askTrafficRows } from './traffic-window-request';
import { formatBytes } from '../format/bytes';

export const ROW_HEIGHT = 20;
/** The columns, shared by the header and every row: time, direction, method, task, HTTP, JSON-RPC error, size, latency. */
export const COLUMNS = '6.5rem 1rem minmax(7rem,1.4fr) minmax(5rem,1fr) 3rem 3.75rem 4.5rem 4rem';

const kindColour: Record<TrafficLine['kind'], string> = {
  request: 'text-slate-800 dark:text-slate-200',
  notification: 'text-violet-600 dark:text-violet-400',
  error: 'text-red-600 dark:text-red-400',
  auth: 'text-amber-700 dark:text-amber-300',
};

const cell = 'truncate px-1.5';

const Row = memo(function Row({
  row,
  index,
  selected,
  onOpen,
}: {
  row: TrafficLine;
  index: number;
  selected: boolean;
  onOpen: (n: number) => void;
}) {
  const pending = row.opener === 'request' && !row.answered;
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      aria-selected={selected}
      data-testid="traffic-row"
      data-n={row.n}
      data-kind={row.kind}
      onClick={() => onOpen(row.n)}
      className={`grid cursor-pointer items-center border-b border-slate-100 hover:bg-slate-50 dark:border-slate-900 dark:hover:bg-slate-900 ${selected ? 'bg-sky-50 dark:bg-sky-950/60' : ''}`}
      style={{ gridTemplateColumns: COLUMNS, height: ROW_HEIGHT }}
    >
      <span role="cell" className="px-1.5 text-slate-500 tabular-nums">
        {/* The row opens on a click anywhere; this button makes it reachable and operable by keyboard. */}
        <button
          type="button"
          onClick={(e) => {
            e.stopPropagation();
            onOpen(row.n);
          }}
          aria-label={`Open message ${row.seq}: ${row.kind} ${row.method ?? ''}`}
          aria-expanded={selected}
          className={`rounded tabular-nums ${focusRing}`}
          data-testid="traffic-time"
          data-keynav-item
        >
          {formatClock(row.wallTime, { millis: true })}
        </button>
      </span>
      <span role="cell" title={row.direction === 'out' ? 'sent by Taskscope' : 'sent by the receiver'}>
        {/* A glyph, not an SVG icon: a following log draws a screen of new rows per batch. */}
        {row.direction === 'out' ? (
          <span className="text-sky-500" role="img" aria-label="out">
            ↗
          </span>
        ) : (
          <span className="text-green-500" role="img" aria-label="in">
            ↙
          </span>
        )}
      </span>
      <span role="cell" className={`${cell} font-mono ${kindColour[row.kind]}`} title={row.method}>
        {row.method ?? (row.opener === 'http-error' ? 'HTTP error' : '(answer)')}
        {row.kind === 'notification' && <span className="text-slate-500"> · notification</span>}
        {row.kind === 'auth' && <span className="text-slate-500"> · sign-in</span>}
        {row.expected && (
          <span className="text-slate-500" title={row.expected} data-testid="traffic-expected">
            {' '}
            · expected
          </span>
        )}
      </span>
      <span role="cell" className={`${cell} font-mono text-slate-500`} title={row.taskId}>
        {row.taskId ?? ''}
      </span>
      <span
        role="cell"
        className={`${cell} tabular-nums ${row.httpStatus && row.httpStatus >= 400 ? 'text-red-600 dark:text-red-400' : 'text-slate-500'}`}
      >
        {row.httpStatus ?? ''}
      </span>
      <span role="cell" className={`${cell} text-red-600 tabular-nums dark:text-red-400`}>
        {row.rpcErrorCode ?? ''}
      </span>
      <span role="cell" className={`${cell} text-right text-slate-500 tabular-nums`}>
        {formatBytes(row.bytes)}
      </span>
      <span role="cell" className={`${cell} text-right text-slate-500 tabular-nums`}>
        {row.latencyMs !== undefined ? `${Math.round(row.latencyMs)} ms` : pending ? '…' : ''}
      </span>
    </div>
  );
});

/**
 * The rows, oldest at the top, drawing only those in view: the window the engine sent has lines in their
 * places, the other filtered rows are holes (placeholders of the same height). With follow on (and no row
 * open) the newest stays in view; otherwise the rows in view stay where they are, also when the ring lets
 * older ones go above them. A batch reads no layout: the view's height comes from a ResizeObserver, the
 * scroll position from the scroll events.
 */
export function TrafficTable({
  items,
  lines,
  linesStart,
  selected,
  follow,
  onOpen,
  onUnfollow,
}: {
  items: readonly (TrafficLine | undefined)[];
  /** The window's lines, which `items` holds from `linesStart` on: the only rows the anchor can be found in. */
  lines: readonly TrafficLine[];
  linesStart: number;
  selected: number | null;
  follow: boolean;
  onOpen: (n: number) => void;
  onUnfollow: () => void;
}) {
  const scrollRef = useRef<HTMLDivElement | null>(null);
  /** The scroll position as last seen (a scroll event) or set here. */
  const scrollTop = useRef(0);
  /** The view's height, as the ResizeObserver last said. */
  const viewHeight = useRef(0);
  /** The row at the top of the view and how far into it: what stays put when rows come and go. */
  const anchor = useRef<{ n: number; offset: number } | null>(null);
  /** The row at the scroll position last seen; none over a hole (its row has not come yet). */
  const anchorAt = useCallback(
    (top: number) => {
      const index = Math.floor(top / ROW_HEIGHT);
      const line = items[index];
      anchor.current = line ? { n: line.n, offset: top - index * ROW_HEIGHT } : null;
    },
    [items],
  );
  const noteAnchor = useCallback(() => {
    const element = scrollRef.current;
    if (!element) return;
    // In a scroll event: the browser has just laid out, so reading costs nothing.
    scrollTop.current = element.scrollTop;
    anchorAt(scrollTop.current);
  }, [anchorAt]);

  const following = follow && selected === null;
  /** What the view's newest rows are: kept for a resize, which follows them too. */
  const bottom = useRef<number | null>(null);
  const scrollTo = useCallback((top: number) => {
    const element = scrollRef.current;
    if (!element || Math.abs(scrollTop.current - top) < 1) return;
    element.scrollTop = top;
    scrollTop.current = top;
  }, []);
  useLayoutEffect(() => {
    bottom.current = following ? items.length * ROW_HEIGHT : null;
    if (bottom.current !== null) {
      const top = Math.max(0, bottom.current - viewHeight.current);
      scrollTo(top);
      // The rows in view while following are the anchor once it stops (a row opened, a scroll up): at the
      // log's cap the length stays and no scroll event says the rows moved under the view.
      anchorAt(top);
    } else {
      const at = anchor.current ? indexOfRow(lines, anchor.current.n) : -1;
      const index = at === -1 ? -1 : linesStart + at;
      if (anchor.current && index !== -1) scrollTo(index * ROW_HEIGHT + anchor.current.offset);
      // Rows that came where the view is (it was over holes) anchor it from now on.
      else anchorAt(scrollTop.current);
    }
  }, [items, lines, linesStart, following, scrollTo, anchorAt]);

  useEffect(() => {
    const element = scrollRef.current;
    if (!element || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver((entries) => {
      const height = entries[0]?.contentRect.height;
      if (height === undefined) return;
      viewHeight.current = height;
      if (bottom.current !== null) scrollTo(Math.max(0, bottom.current - height));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [scrollTo]);

  return (
    <VirtualRows
      items={items}
      rowHeight={ROW_HEIGHT}
      overscan={10}
      itemKey={(row) => row.n}
      testId="traffic-rows"
      scrollRef={scrollRef}
      onRange={askTrafficRows}
      focusTarget={(row) => row.querySelector<HTMLElement>('[data-keynav-item]')}
      scrollProps={{
        role: 'rowgroup',
        onScroll: noteAnchor,
        // A person scrolling up (wheel, or the scroll bar itself) means to read: stop following.
        onWheel: (e) => {
          if (e.deltaY < 0 && follow) onUnfollow();
        },
        onPointerDown: (e) => {
          if (e.target === e.currentTarget && follow) onUnfollow();
        },
      }}
      renderRow={(row, index) => (
        <Row row={row} index={index} selected={row.n === selected} onOpen={onOpen} />
      )}
    />
  );
}

/** The column headers, above the scrolling rows. */
export function TrafficHeader() {
  const names = ['Time', '', 'Method', 'Task', 'HTTP', 'RPC err', 'Size', 'Latency'];
  const titles = [
    'When the message was sent or received (local time)',
    'Direction',
    'JSON-RPC method',
    'The task it is about (params.taskId, the answer, or related-task _meta)',
    'HTTP status of the POST that carried it',
    'JSON-RPC error code of the answer',
    'Request and answer, as JSON',
    'From request to answer',
  ];
  return (
    <div
      role="row"
      aria-rowindex={1}
      className="grid border-b border-slate-200 bg-slate-50 text-[10px] font-semibold tracking-wide text-slate-500 uppercase dark:border-slate-800 dark:bg-slate-900"
      style={{ gridTemplateColumns: COLUMNS }}
    >
      {names.map((name, i) => (
        <span
          key={i}
          role="columnheader"
          title={titles[i]}
          className={`truncate px-1.5 py-0.5 ${i >= 6 ? 'text-right' : ''}`}
        >
          {name}
        </span>
      ))}
    </div>
  );
}
