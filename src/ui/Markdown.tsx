import ReactMarkdown, { type Components } from 'react-markdown';
import { safeHref } from './safe-url';
import { focusRing } from './Button';
import { markdownClass, type MarkdownSize } from './markdown-look';

const components: Components = {
  a: ({ href, children }) => {
    const safe = safeHref(href);
    return safe ? (
      <a
        href={safe}
        target="_blank"
        rel="noopener noreferrer nofollow"
        className={`rounded text-sky-600 underline dark:text-sky-400 ${focusRing}`}
      >
        {children}
      </a>
    ) : (
      <span className="text-slate-500" title={`Link not followed: ${String(href ?? '')}`}>
        {children}
      </span>
    );
  },
  // Remote images would let a receiver track who looks at a result; show where they point instead.
  img: ({ src, alt }) => (
    <span className="text-slate-500" title={typeof src === 'string' ? src : undefined}>
      [image: {alt || 'untitled'}]
    </span>
  ),
};

/**
 * Markdown from a receiver, rendered without raw HTML (react-markdown shows HTML as text and never injects it)
 * and with only http(s)/mailto links live. Split out and loaded on demand: it is the heaviest view, drawn
 * through `MarkdownText` (`ui/MarkdownText.tsx`).
 */
export default function Markdown({ text, size = 'base' }: { text: string; size?: MarkdownSize }) {
  return (
    <div className={markdownClass(size)}>
      <ReactMarkdown urlTransform={(url) => safeHref(url) ?? ''} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
