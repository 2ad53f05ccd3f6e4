/** How receiver markdown looks, shared by the lazily loaded renderer and the plain text drawn without it. */

const sizes = {
  base: 'text-sm [&_h1]:text-lg [&_h1]:font-semibold [&_h2]:font-semibold',
  sm: 'text-xs [&_h1]:text-sm [&_h1]:font-semibold [&_h2]:text-xs [&_h2]:font-semibold [&_h2]:mt-2 [&_h3]:font-medium',
} as const;

export type MarkdownSize = keyof typeof sizes;

/**
 * Long words and lines wrap (anywhere, if they must); code blocks and tables scroll inside their own box, so
 * nothing a receiver writes widens the page.
 */
export const markdownClass = (size: MarkdownSize): string =>
  `prose-taskscope min-w-0 leading-relaxed [overflow-wrap:anywhere] [&_code]:rounded [&_code]:bg-slate-100 [&_code]:px-1 dark:[&_code]:bg-slate-800 [&_li]:ml-5 [&_ol]:list-decimal [&_p]:my-1.5 [&_pre]:max-w-full [&_pre]:overflow-x-auto [&_table]:block [&_table]:max-w-full [&_table]:overflow-x-auto [&_ul]:list-disc ${sizes[size]}`;
