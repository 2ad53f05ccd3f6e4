// @vitest-environment jsdom
import { act, useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { reactRoot } from '../../test/helpers/react-root';
import Markdown from './Markdown';
import { isPlainText, MarkdownText } from './MarkdownText';

/** How often react-markdown ran: the parse is the cost a plain sentence and an unchanged text must not pay. */
const parses = vi.hoisted(() => ({ count: 0 }));
vi.mock('react-markdown', async (importOriginal) => {
  const actual = await importOriginal<typeof import('react-markdown')>();
  const Counted = (props: Parameters<typeof actual.default>[0]) => {
    parses.count++;
    return actual.default(props);
  };
  return { ...actual, default: Counted };
});

const view = reactRoot();

const PLAIN = [
  'done',
  'Step 3/4: 75% done, about 2 s left.',
  'Résultat prêt (ok)!',
  'See https://example.com/x',
];
const MARKED = [
  '**done**',
  '1. done',
  '2) done',
  '- done',
  '# done',
  'a\nb',
  'a & b',
  'a &amp; b',
  'x < y',
  'snake_case',
  '`code`',
  '[link](https://example.com)',
  ' done',
  'done  ',
  'done\\',
];

describe('MarkdownText', () => {
  it('draws a plain sentence exactly as react-markdown does, and leaves every marked-up text to it', () => {
    for (const text of PLAIN) {
      expect(isPlainText(text)).toBe(true);
      act(() => view.root.render(<Markdown text={text} />));
      const byRenderer = view.container.innerHTML;
      act(() => view.root.render(<MarkdownText key={text} text={text} fallback={<pre>{text}</pre>} />));
      expect(view.container.innerHTML).toBe(byRenderer);
    }
    for (const text of MARKED) expect(isPlainText(text)).toBe(false);
  });

  it('a plain sentence costs no parse, and an unchanged text is not parsed again when its parent draws again', async () => {
    await import('./Markdown');
    let redraw: () => void = () => undefined;
    function Parent({ text }: { text: string }) {
      const [n, setN] = useState(0);
      redraw = () => setN((k) => k + 1);
      return (
        <div data-n={n}>
          <MarkdownText text={text} fallback={<pre>{text}</pre>} />
        </div>
      );
    }
    parses.count = 0;
    await act(async () => view.root.render(<Parent text="done" />));
    expect(view.container.querySelector('p')?.textContent).toBe('done');
    expect(parses.count).toBe(0);

    await act(async () => view.root.render(<Parent text="**done**" />));
    await vi.waitFor(() => expect(view.container.querySelector('strong')?.textContent).toBe('done'));
    const once = parses.count;
    expect(once).toBeGreaterThan(0);
    act(() => redraw());
    act(() => redraw());
    expect(parses.count).toBe(once);
  });
});
