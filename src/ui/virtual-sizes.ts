import { elementScroll, type Rect, type Virtualizer } from '@tanstack/react-virtual';

/**
 * Sizes for a virtual list that mounts within a click's work (a task's observations), read only where the
 * browser has laid the page out already: in the ResizeObserver's callbacks. The library's defaults read the
 * scroller's size and each row's height as they mount, in React's commit, which makes the browser lay out the
 * whole page there and then, and again once the rows move. Until the first observation the scroller has the
 * list's `initialRect` and a row its last measured height, or its estimate. Without a ResizeObserver (jsdom)
 * the scroller is read as the library reads it. And the library's first scroll of a new scroller, to its top,
 * is left out: a new scroller is at its top, and writing it would lay the page out as well.
 */

export function observeScrollerSize<T extends Element>(
  instance: Virtualizer<T, Element>,
  cb: (rect: Rect) => void,
): (() => void) | undefined {
  const element = instance.scrollElement;
  if (!element) return undefined;
  const read = () => cb({ width: element.clientWidth, height: element.clientHeight });
  const Observer = instance.targetWindow?.ResizeObserver;
  if (!Observer) {
    read();
    return undefined;
  }
  const observer = new Observer(read);
  observer.observe(element);
  return () => observer.disconnect();
}

export function observedRowSize<T extends Element>(
  element: Element,
  entry: ResizeObserverEntry | undefined,
  instance: Virtualizer<T, Element>,
): number {
  const box = entry?.borderBoxSize?.[0];
  if (box) return Math.round(box.blockSize);
  // Called from the observer without a border box (an older browser): the layout is done, reading is free.
  if (entry) return Math.round(element.getBoundingClientRect().height);
  const index = instance.indexFromElement(element);
  return (
    instance.itemSizeCache.get(instance.options.getItemKey(index)) ?? instance.options.estimateSize(index)
  );
}

const scrolled = new WeakSet<object>();

export function scrollUnlessNew<T extends Element>(
  offset: number,
  options: { adjustments?: number; behavior?: ScrollBehavior },
  instance: Virtualizer<T, Element>,
): void {
  const first = !scrolled.has(instance);
  scrolled.add(instance);
  if (first && offset + (options.adjustments ?? 0) === 0) return;
  elementScroll(offset, options, instance);
}
