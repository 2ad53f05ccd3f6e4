// @vitest-environment jsdom
import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { CollapsibleMarkdown } from './CollapsibleMarkdown';
import { reactRoot } from '../../test/helpers/react-root';

const view = reactRoot();

/** Instructions of the length server-everything sends: headings, code, several screens of text. */
const LONG = [
  '# Everything Server – Server Instructions',
  '',
  'This server exercises every feature of the protocol; use `echo` to start.',
  '',
  '## Cross-Feature Relationships',
  '',
  ...Array.from({ length: 12 }, (_, i) => `- relationship ${i + 1} between a tool and a resource`),
  '',
  '## Easter Egg',
  '',
  'You found it.',
].join('\n');

async function render(text: string) {
  await act(async () => view.root.render(<CollapsibleMarkdown text={text} testId="server-instructions" />));
  // The markdown renderer loads lazily, with the plain text standing in until it has.
  await vi.waitFor(() =>
    expect(view.container.querySelector('h1, p:not(.whitespace-pre-wrap)')).not.toBeNull(),
  );
  return view.container.querySelector<HTMLElement>('[data-testid="server-instructions"]')!;
}

const button = () => view.container.querySelector('button');

describe('CollapsibleMarkdown', () => {
  it('reads long instructions as markdown, folded, with Show all and Show less', async () => {
    const box = await render(LONG);
    expect(box.querySelector('h1')?.textContent).toBe('Everything Server – Server Instructions');
    expect([...box.querySelectorAll('h2')].map((h) => h.textContent)).toEqual([
      'Cross-Feature Relationships',
      'Easter Egg',
    ]);
    expect(box.querySelector('code')?.textContent).toBe('echo');
    expect(box.textContent).not.toContain('# Everything');
    expect(box.dataset.expanded).toBe('false');
    const body = box.firstElementChild as HTMLElement;
    expect(body.className).toContain('max-h-24');
    expect(body.className).toContain('overflow-hidden');
    expect(button()?.textContent).toBe('Show all');
    expect(button()?.getAttribute('aria-expanded')).toBe('false');

    act(() => button()!.click());
    expect(box.dataset.expanded).toBe('true');
    expect(body.className).not.toContain('max-h-24');
    expect(button()?.textContent).toBe('Show less');
    act(() => button()!.click());
    expect(box.dataset.expanded).toBe('false');
  });

  it('shows short instructions whole, with no button', async () => {
    const box = await render('Demo receiver for Taskscope: tasks of every kind.');
    expect(box.textContent).toContain('Demo receiver for Taskscope');
    expect(box.dataset.expanded).toBeUndefined();
    expect((box.firstElementChild as HTMLElement).className).not.toContain('max-h-24');
    expect(button()).toBeNull();
  });
});
