import ReactMarkdown, { type Components } from 'react-markdown';
import { safeHref } from './safe-url';
import { focusRing } from './Button';

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

const sizes = {
  base: 'text-sm [&_h1]:text-lg [&_h1]:font-semibold [&_h2]:font-semibold',
  sm: 'text-xs [&_h1]:text-sm [&_h1]:font-semibold [&_h2]:text-xs [&_h2]:font-semibold [&_h2]:mt-2 [&_h3]:font-medium',
} as const;

/**
 * Markdown from a receiver, rendered without raw HTML (react-markdown shows HTML as text and never injects it)
 * and with only http(s)/mailto links live. Split out and loaded on demand: it is the heaviest view. Long
 * words and lines wrap (anywhere, if they must); code blocks and tables scroll inside their own box, so
 * nothing a receiver writes widens the page.
 */
export default function Markdown({ text, size = 'base' }: { text: string; size?: keyof typeof sizes }) {
  return (
    <div
      className={`prose-taskscope min-w-0 leading-relaxed [overflow-wrap:anywhere] [&_code]:rounded [&_code]:bg-slate-100 [&_code]:px-1 dark:[&_code]:bg-slate-800 [&_li]:ml-5 [&_ol]:list-decimal [&_p]:my-1.5 [&_pre]:max-w-full [&_pre]:overflow-x-auto [&_table]:block [&_table]:max-w-full [&_table]:overflow-x-auto [&_ul]:list-disc ${sizes[size]}`}
    >
      <ReactMarkdown urlTransform={(url) => safeHref(url) ?? ''} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
