import { useEffect, useRef, useState } from 'react';
import { Check, Copy, TriangleAlert } from 'lucide-react';
import { Button } from './Button';

type CopyState = { kind: 'idle' } | { kind: 'copied' } | { kind: 'failed'; reason: string };

/** How long "Copied" stays; a failure stays longer, so there is time to read why. */
const COPIED_MS = 1500;
const FAILED_MS = 5000;

/**
 * Copies text to the clipboard and says how it went, on the button itself: "Copied" for a moment, or
 * "Copy failed" with the reason (a page without clipboard access, a denied permission).
 */
export function CopyButton({
  text,
  title = 'Copy',
  label,
  variant = 'ghost',
  className = '',
  testId,
}: {
  /** What to copy; a function when building it costs something (a large JSON), so it runs on click only. */
  text: string | (() => string);
  title?: string;
  /** Shown beside the icon while idle; icon only without it. */
  label?: string;
  variant?: 'ghost' | 'outline';
  className?: string;
  testId?: string;
}) {
  const [state, setState] = useState<CopyState>({ kind: 'idle' });
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const settle = (next: CopyState) => {
    setState(next);
    clearTimeout(timer.current);
    timer.current = setTimeout(
      () => setState({ kind: 'idle' }),
      next.kind === 'failed' ? FAILED_MS : COPIED_MS,
    );
  };
  const copy = async () => {
    try {
      if (!navigator.clipboard?.writeText) throw new Error('this page has no clipboard access');
      await navigator.clipboard.writeText(typeof text === 'function' ? text() : text);
      settle({ kind: 'copied' });
    } catch (error) {
      settle({ kind: 'failed', reason: error instanceof Error ? error.message : String(error) });
    }
  };

  return (
    <Button
      variant={variant}
      onClick={() => void copy()}
      title={state.kind === 'failed' ? `Copy failed: ${state.reason}` : title}
      aria-label={title}
      className={className}
      data-testid={testId}
      data-copy-state={state.kind}
    >
      {state.kind === 'copied' ? (
        <Check size={14} className="text-green-600 dark:text-green-400" aria-hidden />
      ) : state.kind === 'failed' ? (
        <TriangleAlert size={14} className="text-red-600 dark:text-red-400" aria-hidden />
      ) : (
        <Copy size={14} aria-hidden />
      )}
      <span role="status" className="text-xs">
        {state.kind === 'copied' ? 'Copied' : state.kind === 'failed' ? 'Copy failed' : label}
      </span>
    </Button>
  );
}
