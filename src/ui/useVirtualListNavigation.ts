import { useCallback, type RefObject } from 'react';
import { useListNavigation } from './useKeymap';

const FOCUSABLE = 'button, [href], input, select, textarea, [tabindex]:not([tabindex="-1"])';

/** The first thing a person can focus in a row: the row itself, or the first control in it. */
const firstFocusable = (row: HTMLElement): HTMLElement | null =>
  row.matches(FOCUSABLE) ? row : row.querySelector<HTMLElement>(FOCUSABLE);

/**
 * Up/down through a virtualised list (rows carry `data-index`): the neighbour may not be drawn yet, so it is
 * scrolled in and focused once it is. Returns the ref for the scrolling element, which also fills `scrollRef`.
 */
export function useVirtualListNavigation(
  scrollRef: RefObject<HTMLDivElement | null>,
  count: number,
  scrollToIndex: (index: number) => void,
  focusTarget: (row: HTMLElement) => HTMLElement | null = firstFocusable,
): (element: HTMLDivElement | null) => (() => void) | undefined {
  const navigate = useListNavigation((from, step) => {
    const parent = scrollRef.current;
    const row = from.closest<HTMLElement>('[data-index]');
    if (!parent || !row) return false;
    const next = Number(row.dataset.index) + step;
    if (next < 0 || next >= count) return false;
    scrollToIndex(next);
    // The neighbour is normally drawn already (overscan); after a jump it is drawn a frame or two later.
    const focusRow = (triesLeft: number) => {
      const target = parent.querySelector<HTMLElement>(`[data-index="${next}"]`);
      const focusable = target ? focusTarget(target) : null;
      if (focusable) focusable.focus();
      else if (triesLeft > 0) requestAnimationFrame(() => focusRow(triesLeft - 1));
    };
    focusRow(5);
    return true;
  });
  return useCallback(
    (element: HTMLDivElement | null) => {
      scrollRef.current = element;
      return navigate(element);
    },
    [navigate, scrollRef],
  );
}
