// @vitest-environment jsdom
import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Normalised, TaskResultSnapshot } from '../mcp';
import { reactRoot } from '../../test/helpers/react-root';
import { ResultBody } from './ResultBody';

const downloads = vi.hoisted(() => [] as Array<{ fileName: string; text: string }>);
/** How often the result's header was drawn (its copy button is drawn with it, every time). */
const drawn = vi.hoisted(() => ({ count: 0 }));
vi.mock('../ui/CopyButton', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../ui/CopyButton')>();
  const CopyButton = (props: Parameters<typeof actual.CopyButton>[0]) => {
    drawn.count++;
    return actual.CopyButton(props);
  };
  return { ...actual, CopyButton };
});
vi.mock('../ui/download', () => ({
  downloadText: (fileName: string, text: string) => downloads.push({ fileName, text }),
}));

const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAUAAAAFCAYAAACNbyblAAAAHElEQVQI12P4//8/w38GIAXDIBKE0DHxgljNBAAO9TXL0Y4OHwAAAABJRU5ErkJggg==';

/** The result the demo's rich_result_job gives (src/devserver/demo/tool-kit.ts), with `padKb` of appendix. */
const richResult = (padKb: number): Record<string, unknown> => ({
  content: [
    {
      type: 'text',
      text: '# Quarterly report\n\n- **Revenue** up 12%\n- _Costs_ flat\n\n`code` and a [link](https://modelcontextprotocol.io).',
    },
    { type: 'image', data: TINY_PNG, mimeType: 'image/png' },
    { type: 'resource_link', uri: 'file:///reports/q3.csv', name: 'q3.csv', mimeType: 'text/csv' },
    {
      type: 'resource',
      resource: { uri: 'memo://summary', mimeType: 'text/plain', text: 'Summary: all targets met.' },
    },
    ...(padKb > 0 ? [{ type: 'text', text: `Appendix:\n${'0123456789abcdef'.repeat(padKb * 64)}` }] : []),
  ],
  structuredContent: { revenue: { q2: 100, q3: 112 }, costs: [40, 40], ok: true },
});

const view = reactRoot();
beforeEach(() => {
  downloads.length = 0;
});

const answer = (result: Record<string, unknown>, isError = false): Normalised<TaskResultSnapshot> => ({
  value: { result, isError, shape: 'plain' },
  warnings: [],
});

/**
 * Renders the result once its lazy parts (the Markdown, the JSON tree) have loaded, so what is read is what
 * they draw, not the plain text shown while they load.
 */
async function render(result: Normalised<TaskResultSnapshot>) {
  await Promise.all([import('../ui/Markdown'), import('../ui/JsonTree')]);
  await act(async () => view.root.render(<ResultBody answer={result} fileName="task-result.json" />));
  // The Markdown's stand-in while it loads is a text-sm <pre>: none is left once it has rendered.
  await vi.waitFor(() => expect(view.container.querySelector('pre.text-sm')).toBeNull());
  return view.container.querySelector('[data-testid="result"]')!;
}

describe('ResultBody', () => {
  it('draws every content kind of rich_result_job: markdown, an image, a link, a resource, structured content', async () => {
    const shown = await render(answer(richResult(0)));
    expect(shown.querySelector('h1')?.textContent).toBe('Quarterly report');
    expect(shown.querySelectorAll('img[src^="data:image/png;base64,"]')).toHaveLength(1);
    expect(shown.textContent).toContain('q3.csv');
    expect(shown.textContent).toContain('file:///reports/q3.csv');
    expect(shown.textContent).toContain('Summary: all targets met.');
    expect(shown.textContent).toContain('structuredContent');
    expect(shown.textContent).toContain('revenue');
    expect(shown.textContent).not.toContain('the view is cut short');
  });

  it('cuts a result over 1 MB short in view, and the download holds the whole of it', async () => {
    const whole = richResult(1200);
    const shown = await render(answer(whole));
    expect(shown.textContent).toContain('the view is cut short');
    expect(shown.textContent).toContain('Quarterly report');
    expect(shown.textContent).toContain('more characters in the download');
    expect(shown.textContent!.length).toBeLessThan(1_000_000);
    const button = shown.querySelector<HTMLButtonElement>('button[title="Download the JSON"]')!;
    act(() => button.click());
    expect(downloads).toHaveLength(1);
    expect(downloads[0]!.fileName).toBe('task-result.json');
    expect(downloads[0]!.text.length).toBeGreaterThan(1_200_000);
    expect(JSON.parse(downloads[0]!.text)).toEqual(whole);
  });

  it('keeps receiver text inert: HTML shows as text, a javascript: link is no link', async () => {
    const label = '<img src=x onerror="window.pwned=1"> [click me](javascript:window.pwned=2)';
    const shown = await render(answer({ content: [{ type: 'text', text: `Finished ${label}` }] }, true));
    expect(shown.textContent).toContain('Error result');
    expect(shown.textContent).toContain('<img src=x onerror=');
    expect(shown.querySelector('img')).toBeNull();
    const link = [...shown.querySelectorAll('span, a')].find((el) => el.textContent === 'click me');
    expect(link).toBeDefined();
    expect(link!.closest('a')).toBeNull();
  });

  it('is not drawn again when its task is: the same answer, no new render', async () => {
    const kept = answer({ content: [{ type: 'text', text: '**done**' }] });
    const draw = (poll: number) =>
      view.root.render(
        <div data-poll={poll}>
          <ResultBody answer={kept} fileName="task-result.json" />
        </div>,
      );
    await import('../ui/Markdown');
    await act(async () => draw(0));
    await vi.waitFor(() => expect(view.container.querySelector('strong')?.textContent).toBe('done'));
    const once = drawn.count;
    expect(once).toBeGreaterThan(0);
    // Polls of the task draw its detail again; its answer is the same object (the store keeps an equal one).
    act(() => draw(1));
    act(() => draw(2));
    expect(drawn.count).toBe(once);
  });
});
