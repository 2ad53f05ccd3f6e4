import { useLayoutEffect, useRef, type ReactNode } from 'react';
import { X } from 'lucide-react';
import { Button } from './Button';
import { useEscapeLayer } from './useKeymap';

/**
 * A modal dialog on the browser's own <dialog> (top layer, the page behind inert, focus kept inside),
 * closed by its button, a click on the backdrop, or Escape through the app's keymap. Focus goes back to
 * where it was when it opened.
 */
export function Dialog({
  title,
  onClose,
  children,
  testId,
  className = '',
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  testId?: string;
  className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEscapeLayer(true, onClose, 'dialog');
  useLayoutEffect(() => {
    const dialog = ref.current;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      // Closed before React removes it, so a dialog that goes with its content leaves nothing inert behind.
      if (dialog?.open) dialog.close();
      before?.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      aria-label={title}
      data-testid={testId}
      onCancel={(event) => {
        // Escape normally reaches the keymap first; this covers the browser's own close request.
        event.preventDefault();
        onClose();
      }}
      // Closed some other way (the browser, a form inside): the state must follow, or the layer stays open.
      onClose={onClose}
      onClick={(event) => {
        if (event.target === ref.current) onClose();
      }}
      className={`m-auto max-h-[90vh] max-w-[90vw] overflow-hidden rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-950/50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 ${className}`}
    >
      <div className="flex max-h-[90vh] flex-col">
        <header className="flex items-center justify-between gap-4 border-b border-slate-200 px-4 py-2 dark:border-slate-800">
          <h2 className="text-sm font-semibold">{title}</h2>
          <Button variant="ghost" onClick={onClose} aria-label="Close" title="Close (Esc)">
            <X size={14} />
          </Button>
        </header>
        <div className="min-h-0 overflow-auto p-4">{children}</div>
      </div>
    </dialog>
  );
}
