import { useEffect, useRef, type HTMLAttributes, type ReactNode, type RefObject } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useVirtualListNavigation } from './useVirtualListNavigation';

/**
 * A scrolling list of fixed-height rows, drawing only the rows in view (plus `overscan`): a thousand tasks or
 * twenty thousand messages cost what the dozen on screen cost. Up/down move focus from row to row, scrolling
 * rows in as they are reached. Every virtual list in Taskscope is this one.
 */
export function VirtualRows<T>({
  items,
  rowHeight,
  overscan = 8,
  itemKey = defaultKey,
  renderRow,
  testId,
  scrollRef,
  focusTarget,
  scrollProps,
  onRange,
}: {
  /** A hole is a row whose data has not come yet: its place is kept, drawn empty. */
  items: readonly (T | undefined)[];
  rowHeight: number;
  overscan?: number;
  /** A stable key per item, so a row keeps its DOM when rows before it come and go; the item itself by default. */
  itemKey?: (item: T, index: number) => string | number;
  renderRow: (item: T, index: number) => ReactNode;
  testId?: string;
  /** The scrolling element, for a list that keeps its own scroll position (the traffic log's anchor). */
  scrollRef?: RefObject<HTMLDivElement | null>;
  /** What up/down focus in a row; its first focusable element by default. */
  focusTarget?: (row: HTMLElement) => HTMLElement | null;
  /** Attributes and handlers for the scrolling element (a role, scroll and wheel handlers). */
  scrollProps?: HTMLAttributes<HTMLDivElement>;
  /** The rows drawn (overscan included): first and last index, when they or the items change. */
  onRange?: (first: number, last: number) => void;
}) {
  const ownRef = useRef<HTMLDivElement | null>(null);
  const parentRef = scrollRef ?? ownRef;
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => parentRef.current,
    estimateSize: () => rowHeight,
    overscan,
    getItemKey: (index) => {
      const item = items[index];
      return item === undefined ? index : itemKey(item, index);
    },
  });

  const setParent = useVirtualListNavigation(
    parentRef,
    items.length,
    (index) => virtualizer.scrollToIndex(index),
    focusTarget,
  );

  const drawn = virtualizer.getVirtualItems();
  const first = drawn[0]?.index ?? 0;
  const last = drawn.at(-1)?.index ?? -1;
  // Also when the items change: a list that was asked for other rows meanwhile hears which ones are drawn.
  useEffect(() => {
    if (last >= first) onRange?.(first, last);
  }, [first, last, onRange, items]);

  return (
    <div ref={setParent} className="min-h-0 flex-1 overflow-y-auto" data-testid={testId} {...scrollProps}>
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {drawn.map((row) => {
          const item = items[row.index];
          if (item === undefined) return null;
          return (
            <div
              key={row.key}
              data-index={row.index}
              style={{
                position: 'absolute',
                top: 0,
                left: 0,
                right: 0,
                height: row.size,
                transform: `translateY(${row.start}px)`,
              }}
            >
              {renderRow(item, row.index)}
            </div>
          );
        })}
      </div>
    </div>
  );
}

function defaultKey(item: unknown, index: number): string | number {
  return typeof item === 'string' || typeof item === 'number' ? item : index;
}
