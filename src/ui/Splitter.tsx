import { useRef } from 'react';
import { focusRing } from './Button';

const STEP = 24;

/**
 * A handle between two panes that resizes one of them: dragged, or with the arrow keys (Page Up/Down for
 * bigger steps) once focused. `axis` is the direction the size grows in: `x` for a column's width (the
 * handle stands upright), `y` for a pane's height. `grow` says whether dragging right/down grows the size
 * (the pane is before the handle) or shrinks it (the pane is after it, as the traffic drawer is).
 */
export function Splitter({
  axis,
  size,
  setSize,
  grow = 'forward',
  label,
  testId,
  min,
  max,
}: {
  axis: 'x' | 'y';
  /** The pane's size now; a function when it is measured from the page (a share of its container). */
  size: number | (() => number);
  setSize: (size: number) => void;
  grow?: 'forward' | 'backward';
  label: string;
  testId?: string;
  min?: number;
  max?: number;
}) {
  const start = useRef<{ at: number; size: number } | null>(null);
  const current = () => (typeof size === 'function' ? size() : size);
  const sign = grow === 'forward' ? 1 : -1;
  const pos = (e: { clientX: number; clientY: number }) => (axis === 'x' ? e.clientX : e.clientY);
  // Up/left always makes the pane before the handle smaller, as the handle itself moves that way.
  const keyStep: Record<string, number> =
    axis === 'x'
      ? { ArrowLeft: -STEP, ArrowRight: STEP, PageUp: -STEP * 4, PageDown: STEP * 4 }
      : { ArrowUp: -STEP, ArrowDown: STEP, PageUp: -STEP * 4, PageDown: STEP * 4 };
  return (
    <div
      role="separator"
      // The separator's orientation is that of the line it draws: a column boundary is vertical.
      aria-orientation={axis === 'x' ? 'vertical' : 'horizontal'}
      aria-label={label}
      aria-valuenow={typeof size === 'number' ? Math.round(size) : undefined}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={0}
      data-testid={testId}
      className={`shrink-0 bg-slate-100 hover:bg-sky-200 dark:bg-slate-900 dark:hover:bg-sky-900 ${axis === 'x' ? 'w-1 cursor-col-resize' : 'h-1.5 cursor-row-resize'} ${focusRing}`}
      onPointerDown={(e) => {
        start.current = { at: pos(e), size: current() };
        e.currentTarget.setPointerCapture(e.pointerId);
      }}
      onPointerMove={(e) => {
        if (start.current) setSize(start.current.size + sign * (pos(e) - start.current.at));
      }}
      onPointerUp={() => (start.current = null)}
      onPointerCancel={() => (start.current = null)}
      onKeyDown={(e) => {
        const step = keyStep[e.key];
        if (step === undefined) return;
        setSize(current() + sign * step);
        // Handled here: the app's keymap leaves a prevented key alone.
        e.preventDefault();
      }}
    />
  );
}
