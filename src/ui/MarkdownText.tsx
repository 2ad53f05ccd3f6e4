import { lazy, memo, Suspense, type ReactNode } from 'react';
import { markdownClass, type MarkdownSize } from './markdown-look';

const Markdown = lazy(() => import('./Markdown'));

/**
 * Text that reads the same as markdown and as plain text: one line of letters, digits, spaces and punctuation
 * that marks nothing up (no `*_~#>[]|<&\`, no line break), starting with a letter or digit that opens no list.
 * react-markdown draws it as one paragraph of that very text; anything else goes through react-markdown.
 */
const PLAIN = /^[\p{L}\p{N}][\p{L}\p{N} ,.;:?!'"()/%@$-]*$/u;
const LIST_START = /^\p{N}+[.)]/u;

export function isPlainText(text: string): boolean {
  return text.length <= 10_000 && PLAIN.test(text) && !text.endsWith(' ') && !LIST_START.test(text);
}

/**
 * Loads the markdown renderer ahead of need, once the page is idle, so that the first result or instructions
 * shown do not pay for fetching and compiling it. Where there is no idle callback (jsdom) nothing is loaded.
 * Returns the cancel.
 */
export function preloadMarkdownWhenIdle(): () => void {
  if (typeof requestIdleCallback !== 'function') return () => undefined;
  const handle = requestIdleCallback(() => void import('./Markdown'), { timeout: 10_000 });
  return () => cancelIdleCallback(handle);
}

/**
 * Markdown from a receiver (no raw HTML, only http(s)/mailto links live), drawn again only when its text or
 * size changes. A plain sentence ("done") is drawn as react-markdown draws it, without loading or running it;
 * other text shows `fallback` (the same text, unformatted) while the renderer loads.
 */
export const MarkdownText = memo(function MarkdownText({
  text,
  size = 'base',
  fallback,
}: {
  text: string;
  size?: MarkdownSize;
  fallback: ReactNode;
}) {
  if (isPlainText(text))
    return (
      <div className={markdownClass(size)}>
        <p>{text}</p>
      </div>
    );
  return (
    <Suspense fallback={fallback}>
      <Markdown text={text} size={size} />
    </Suspense>
  );
}, sameText);

function sameText(
  before: { text: string; size?: MarkdownSize },
  after: { text: string; size?: MarkdownSize },
) {
  return before.text === after.text && before.size === after.size;
}
