// @vitest-environment jsdom
import { act } from 'react';
import { describe, expect, it } from 'vitest';
import { ProgressBar } from './ProgressBar';
import { reactRoot } from '../../../test/helpers/react-root';

const view = reactRoot();

const bar = () => view.container.querySelector('[role="progressbar"]') as HTMLElement;

describe('ProgressBar', () => {
  it('is determinate with a total: value, maximum and the message', () => {
    act(() =>
      view.root.render(<ProgressBar progress={{ progress: 2, total: 4, message: 'Step 3/4', at: 0 }} />),
    );
    expect(bar().getAttribute('aria-valuenow')).toBe('2');
    expect(bar().getAttribute('aria-valuemax')).toBe('4');
    expect(bar().getAttribute('aria-valuetext')).toBe('2/4 — Step 3/4');
    expect((bar().firstElementChild as HTMLElement).style.width).toBe('50%');
    expect(view.container.textContent).toContain('Step 3/4');
  });

  it('is indeterminate without a usable total: no value a screen reader would read as a share', () => {
    for (const total of [undefined, 0]) {
      act(() => view.root.render(<ProgressBar progress={{ progress: 7, total, at: 0 }} />));
      expect(bar().hasAttribute('aria-valuenow')).toBe(false);
      expect(bar().hasAttribute('aria-valuemax')).toBe(false);
      expect(bar().getAttribute('aria-valuetext')).toBe('7');
    }
  });

  it('never draws past full when progress overshoots its total', () => {
    act(() => view.root.render(<ProgressBar progress={{ progress: 9, total: 4, at: 0 }} />));
    expect((bar().firstElementChild as HTMLElement).style.width).toBe('100%');
  });
});
