// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import Markdown from './Markdown';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function render(text: string) {
  const container = document.createElement('div');
  const root = createRoot(container);
  act(() => root.render(<Markdown text={text} size="sm" />));
  return { container, done: () => act(() => root.unmount()) };
}

describe('Markdown from a receiver', () => {
  it('draws headings and lists as such, not as "#" text', () => {
    const { container, done } = render('# Server Instructions\n\n## Limits\n\n- one `code`\n- two');
    expect(container.querySelector('h1')?.textContent).toBe('Server Instructions');
    expect(container.querySelector('h2')?.textContent).toBe('Limits');
    expect(container.querySelectorAll('li')).toHaveLength(2);
    expect(container.textContent).not.toContain('#');
    done();
  });

  it('keeps raw HTML as text and only http(s)/mailto links live', () => {
    const { container, done } = render(
      '<img src=x onerror="alert(1)"> [bad](javascript:alert(2)) [good](https://example.com) [mail](mailto:a@b.example)',
    );
    expect(container.querySelector('img')).toBeNull();
    expect(container.textContent).toContain('<img src=x onerror="alert(1)">');
    const hrefs = [...container.querySelectorAll('a')].map((a) => a.getAttribute('href'));
    expect(hrefs).toEqual(['https://example.com/', 'mailto:a@b.example']);
    for (const a of container.querySelectorAll('a')) expect(a.rel).toContain('noopener');
    done();
  });
});
