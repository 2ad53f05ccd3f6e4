import { lazy, memo, Suspense, useMemo, useState, type ReactNode } from 'react';
import type { Normalised, TaskResultSnapshot } from '../mcp';
import { Braces, Download, FileText, Link as LinkIcon } from 'lucide-react';
import { Button } from '../ui/Button';
import { CopyButton } from '../ui/CopyButton';
import { downloadText } from '../ui/download';
import { mediaDataUrl, safeHref } from '../ui/safe-url';
import { MarkdownText } from '../ui/MarkdownText';
import { ResultImage } from './ResultImage';

const JsonTree = lazy(() => import('../ui/JsonTree'));

/** Beyond this a result is shown cut short, with the whole of it one click away as a download. */
export const RESULT_VIEW_LIMIT = 1_000_000;
const TEXT_BLOCK_LIMIT = 100_000;
const BLOCKS_SHOWN = 50;
/** A text block longer than this scrolls inside its own box rather than making the page miles long. */
const TALL_TEXT = 20_000;

/** Where a long text block scrolls: inside itself, never the page sideways. */
function TextBox({ long, children }: { long: boolean; children: ReactNode }) {
  return (
    <div
      className={`min-w-0 ${long ? 'max-h-96 overflow-y-auto rounded border border-slate-200 p-2 dark:border-slate-800' : ''}`}
      data-testid={long ? 'long-text' : undefined}
      // Scrolled by keyboard as well: a scroll box with nothing focusable inside needs to take focus itself.
      tabIndex={long ? 0 : undefined}
    >
      {children}
    </div>
  );
}

type Block = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const cut = (s: string, limit: number) =>
  s.length > limit ? `${s.slice(0, limit)}\n… (${s.length - limit} more characters in the download)` : s;

function ContentBlock({ block, truncated }: { block: Block; truncated: boolean }) {
  const limit = truncated ? TEXT_BLOCK_LIMIT : Infinity;
  switch (block.type) {
    case 'text': {
      const text = cut(str(block.text) ?? '', limit);
      return (
        <TextBox long={text.length > TALL_TEXT}>
          <MarkdownText
            text={text}
            fallback={<pre className="text-sm [overflow-wrap:anywhere] whitespace-pre-wrap">{text}</pre>}
          />
        </TextBox>
      );
    }
    case 'image':
    case 'audio': {
      const src = mediaDataUrl(block.type, block.mimeType, block.data);
      if (!src)
        return (
          <p className="text-xs text-amber-700">
            {block.type} of type {String(block.mimeType)} not shown (unsupported type or bad base64).
          </p>
        );
      return block.type === 'image' ? (
        <ResultImage src={src} data={str(block.data) ?? ''} mimeType={str(block.mimeType) ?? ''} />
      ) : (
        <audio controls src={src} />
      );
    }
    case 'resource_link': {
      const href = safeHref(block.uri);
      return (
        <div className="flex min-w-0 flex-wrap items-center gap-2 text-sm [overflow-wrap:anywhere]">
          <LinkIcon size={14} className="shrink-0 text-slate-400" />
          {href ? (
            <a
              href={href}
              target="_blank"
              rel="noopener noreferrer nofollow"
              className="text-sky-600 underline dark:text-sky-400"
            >
              {str(block.name) ?? href}
            </a>
          ) : (
            <span className="font-medium">{str(block.name) ?? 'resource'}</span>
          )}
          <code className="text-xs text-slate-500">{str(block.uri)}</code>
          {str(block.mimeType) && <span className="text-xs text-slate-500">{str(block.mimeType)}</span>}
        </div>
      );
    }
    case 'resource': {
      const resource = (typeof block.resource === 'object' && block.resource ? block.resource : {}) as Block;
      return (
        <div className="min-w-0 rounded border border-slate-200 p-2 text-sm dark:border-slate-800">
          <div className="mb-1 flex flex-wrap items-center gap-2 text-xs text-slate-500 [overflow-wrap:anywhere]">
            <FileText size={14} className="shrink-0" /> embedded resource <code>{str(resource.uri)}</code>{' '}
            {str(resource.mimeType)}
          </div>
          {str(resource.text) !== undefined ? (
            <TextBox long={(str(resource.text) ?? '').length > TALL_TEXT}>
              <pre className="text-xs [overflow-wrap:anywhere] whitespace-pre-wrap">
                {cut(str(resource.text) ?? '', limit)}
              </pre>
            </TextBox>
          ) : (
            <p className="text-xs text-slate-500">
              binary ({(str(resource.blob) ?? '').length} base64 characters)
            </p>
          )}
        </div>
      );
    }
    default:
      return (
        <Suspense fallback={null}>
          <JsonTree value={block} />
        </Suspense>
      );
  }
}

/**
 * A CallToolResult drawn block by block (markdown without raw HTML, media from base64, resources, a JSON tree
 * for structuredContent), raw JSON, copy and download a click away, cut short in view beyond 1 MB. Drawn again
 * only when the answer changes (the store keeps an equal answer's object), not with every poll of its task.
 */
export const ResultBody = memo(function ResultBody({
  answer,
  fileName,
}: {
  answer: Normalised<TaskResultSnapshot>;
  fileName: string;
}) {
  const [raw, setRaw] = useState(false);
  const json = useMemo(() => JSON.stringify(answer.value.result, null, 2) ?? 'null', [answer]);
  const { result, isError } = answer.value;
  const truncated = json.length > RESULT_VIEW_LIMIT;
  const content = Array.isArray(result?.content)
    ? (result.content as unknown[]).filter((b): b is Block => typeof b === 'object' && b !== null)
    : [];
  return (
    <div
      className={`min-w-0 space-y-3 rounded-md border p-3 ${isError ? 'border-red-300 bg-red-50/50 dark:border-red-900 dark:bg-red-950/30' : 'border-slate-200 dark:border-slate-800'}`}
      data-testid="result"
    >
      <div className="flex items-center gap-2">
        <span
          className={`text-xs font-semibold uppercase ${isError ? 'text-red-700 dark:text-red-400' : 'text-green-700 dark:text-green-400'}`}
        >
          {isError ? 'Error result' : 'Result'}
        </span>
        <span className="text-xs text-slate-500">{json.length.toLocaleString()} bytes</span>
        <div className="ml-auto flex gap-1">
          <Button variant="ghost" onClick={() => setRaw((r) => !r)} aria-pressed={raw} title="Raw JSON">
            <Braces size={14} /> {raw ? 'Rendered' : 'Raw'}
          </Button>
          <CopyButton text={json} title="Copy the JSON" testId="copy-result" />
          <Button
            variant="ghost"
            onClick={() => downloadText(fileName, json, 'application/json')}
            title="Download the JSON"
          >
            <Download size={14} />
          </Button>
        </div>
      </div>
      {truncated && (
        <p className="rounded bg-amber-50 px-2 py-1 text-xs text-amber-800 dark:bg-amber-950 dark:text-amber-300">
          This result is {(json.length / 1e6).toFixed(1)} MB: the view is cut short. Download it for the
          whole.
        </p>
      )}
      {answer.warnings.length > 0 && (
        <ul className="text-xs [overflow-wrap:anywhere] text-amber-700 dark:text-amber-400">
          {answer.warnings.map((w, i) => (
            <li key={i}>⚠ {w.message}</li>
          ))}
        </ul>
      )}
      {raw ? (
        <pre className="max-h-[32rem] max-w-full overflow-auto rounded bg-slate-50 p-2 text-xs dark:bg-slate-900">
          {truncated ? cut(json, RESULT_VIEW_LIMIT) : json}
        </pre>
      ) : result === null ? (
        <p className="text-sm text-slate-600 dark:text-slate-300">
          The receiver returned no detail for this {isError ? 'failure' : 'task'}.
        </p>
      ) : (
        <>
          {content.slice(0, BLOCKS_SHOWN).map((block, i) => (
            <ContentBlock key={i} block={block} truncated={truncated} />
          ))}
          {content.length > BLOCKS_SHOWN && (
            <p className="text-xs text-slate-500">
              {content.length - BLOCKS_SHOWN} more blocks in the download.
            </p>
          )}
          {result.structuredContent !== undefined && !truncated && (
            <div>
              <h4 className="mb-1 text-xs font-medium text-slate-500">structuredContent</h4>
              <Suspense fallback={null}>
                <JsonTree value={result.structuredContent} />
              </Suspense>
            </div>
          )}
          {content.length === 0 && result.structuredContent === undefined && (
            <Suspense fallback={null}>
              <JsonTree value={result} />
            </Suspense>
          )}
        </>
      )}
    </div>
  );
});
