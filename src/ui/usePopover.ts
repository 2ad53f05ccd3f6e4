import { useEffect, useRef, useState } from 'react';
import { restoreFocus } from './keymap';
import { useEscapeLayer } from './useKeymap';

/**
 * A menu's open state and the ways it closes: Escape (the app's keymap, innermost layer first), a press anywhere
 * outside it, and whatever else `closeWhen` subscribes to (a change of what the page shows). Escape hands focus
 * back to the button; an outside press leaves it where the person put it. `closeWhen` should be a stable
 * function (defined outside the component): a new one re-subscribes.
 */
export function usePopover(closeWhen?: (close: () => void) => () => void) {
  const [open, setOpen] = useState(false);
  const menuRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  useEscapeLayer(
    open,
    () => {
      restoreFocus(menuRef.current, buttonRef.current);
      setOpen(false);
    },
    'menu',
  );
  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node;
      // The button toggles the menu itself; a press on it is not "outside".
      if (!menuRef.current?.contains(target) && !buttonRef.current?.contains(target)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    const unsubscribe = closeWhen?.(() => setOpen(false));
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
      unsubscribe?.();
    };
  }, [open, closeWhen]);
  return { open, setOpen, menuRef, buttonRef };
}
