import { useRef, type ReactNode } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useVirtualListNavigation } from './useVirtualListNavigation';

/**
 * A scrolling list of fixed-height rows keyed by id, drawing only the rows in view (plus `overscan`): a
 * thousand tasks cost what the dozen on screen cost. Up/down move focus from row to row, scrolling rows in
 * as they are reached.
 */
export function VirtualRows({
  ids,
  rowHeight,
  overscan = 8,
  renderRow,
  testId,
}: {
  ids: readonly string[];
  rowHeight: number;
  overscan?: number;
  renderRow: (id: string) => ReactNode;
  testId?: string;
}) {
  const parentRef = useRef<HTMLDivElement | null>(null);
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: ids.length,
    getScrollElement: () => parentRef.current,
    estimateSize: () => rowHeight,
    overscan,
  });

  const setParent = useVirtualListNavigation(parentRef, ids.length, (index) =>
    virtualizer.scrollToIndex(index),
  );

  return (
    <div ref={setParent} className="min-h-0 flex-1 overflow-y-auto" data-testid={testId}>
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((item) => {
          const id = ids[item.index];
          if (id === undefined) return null;
          return (
            <div
              key={id}
              data-index={item.index}
              style={{
                position: 'absolute',
                top: 0,
                left: 0,
                right: 0,
                height: item.size,
                transform: `translateY(${item.start}px)`,
              }}
            >
              {renderRow(id)}
            </div>
          );
        })}
      </div>
    </div>
  );
}
