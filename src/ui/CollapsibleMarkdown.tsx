import { useId, useState } from 'react';
import { ChevronDown, ChevronUp } from 'lucide-react';
import { focusRing } from './Button';
import { isLongText } from './fold';
import { MarkdownText } from './MarkdownText';

/**
 * Markdown from a receiver (no raw HTML, only http(s)/mailto links live) that folds to a few lines when
 * long, with a button to show all of it.
 */
export function CollapsibleMarkdown({ text, testId }: { text: string; testId?: string }) {
  const long = isLongText(text);
  const [expanded, setExpanded] = useState(false);
  const id = useId();
  const folded = long && !expanded;
  return (
    <div data-testid={testId} data-expanded={long ? String(expanded) : undefined}>
      <div id={id} className={`relative min-w-0 ${folded ? 'max-h-24 overflow-hidden' : ''}`}>
        <MarkdownText
          text={text}
          size="sm"
          fallback={<p className="text-xs break-words whitespace-pre-wrap">{text}</p>}
        />
        {folded && (
          <div className="pointer-events-none absolute inset-x-0 bottom-0 h-8 bg-gradient-to-t from-white dark:from-slate-950" />
        )}
      </div>
      {long && (
        <button
          type="button"
          onClick={() => setExpanded((e) => !e)}
          aria-expanded={expanded}
          aria-controls={id}
          className={`mt-1 flex items-center gap-1 rounded text-xs text-sky-700 hover:underline dark:text-sky-400 ${focusRing}`}
        >
          {expanded ? <ChevronUp size={12} /> : <ChevronDown size={12} />}
          {expanded ? 'Show less' : 'Show all'}
        </button>
      )}
    </div>
  );
}
