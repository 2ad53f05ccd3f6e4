// @vitest-environment jsdom
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CopyButton } from './CopyButton';
import { reactRoot } from '../../test/helpers/react-root';

const view = reactRoot();
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function clipboard(writeText: ((text: string) => Promise<void>) | undefined) {
  vi.stubGlobal('navigator', { ...navigator, clipboard: writeText ? { writeText } : undefined });
}

async function click() {
  await act(async () => {
    view.container.querySelector('button')!.click();
  });
}

const button = () => view.container.querySelector('button')!;

describe('CopyButton', () => {
  it('copies, says "Copied" for a moment, then goes back', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    clipboard(writeText);
    const build = vi.fn(() => '{"big":true}');
    act(() => view.root.render(<CopyButton text={build} title="Copy the JSON" />));
    expect(build).not.toHaveBeenCalled();
    await click();
    expect(writeText).toHaveBeenCalledWith('{"big":true}');
    expect(button().textContent).toBe('Copied');
    expect(button().dataset.copyState).toBe('copied');
    act(() => vi.advanceTimersByTime(1600));
    expect(button().textContent).toBe('');
    expect(button().dataset.copyState).toBe('idle');
  });

  it('says when the clipboard refused, with the reason in the title', async () => {
    clipboard(() => Promise.reject(new Error('Write permission denied.')));
    act(() => view.root.render(<CopyButton text="x" label="Copy id" />));
    expect(button().textContent).toBe('Copy id');
    await click();
    expect(button().textContent).toBe('Copy failed');
    expect(button().title).toBe('Copy failed: Write permission denied.');
    act(() => vi.advanceTimersByTime(5100));
    expect(button().textContent).toBe('Copy id');
  });

  it('says so on a page with no clipboard at all', async () => {
    clipboard(undefined);
    act(() => view.root.render(<CopyButton text="x" />));
    await click();
    expect(button().title).toBe('Copy failed: this page has no clipboard access');
  });
});
