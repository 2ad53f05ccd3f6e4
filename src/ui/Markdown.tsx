import ReactMarkdown, { type Components } from 'react-markdown';
import { safeHref } from './safe-url';

const components: Components = {
  a: ({ href, children }) => {
    const safe = safeHref(href);
    return safe ? (
      <a
        href={safe}
        target="_blank"
        rel="noopener noreferrer nofollow"
        className="text-sky-600 underline dark:text-sky-400"
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
 * and with only http(s)/mailto links live. Split out and loaded on demand: it is the heaviest view.
 */
export default function Markdown({ text }: { text: string }) {
  return (
    <div className="prose-taskscope text-sm leading-relaxed [&_code]:rounded [&_code]:bg-slate-100 [&_code]:px-1 dark:[&_code]:bg-slate-800 [&_h1]:text-lg [&_h1]:font-semibold [&_h2]:font-semibold [&_li]:ml-5 [&_ol]:list-decimal [&_p]:my-1.5 [&_pre]:overflow-x-auto [&_ul]:list-disc">
      <ReactMarkdown urlTransform={(url) => safeHref(url) ?? ''} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
