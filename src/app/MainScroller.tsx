import { useEffect, useRef, type ReactNode } from 'react';
import { useSelection } from '../state/selection-store';

/**
 * The main pane's scroller. Another selection starts at its top: a task opened from a run form scrolled down
 * shows its status and Cancel. The scroll is reset as the selection changes, before the new view is drawn,
 * so a view that scrolls itself somewhere (a task opened at a moment) does so after.
 */
export function MainScroller({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLElement>(null);
  useEffect(
    () =>
      useSelection.subscribe((now, before) => {
        if (ref.current && JSON.stringify(now.selection) !== JSON.stringify(before.selection))
          ref.current.scrollTop = 0;
      }),
    [],
  );
  return (
    <main ref={ref} className="min-h-0 min-w-0 flex-1 overflow-y-auto">
      {children}
    </main>
  );
}
