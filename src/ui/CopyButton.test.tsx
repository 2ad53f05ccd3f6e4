// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CopyButton } from './CopyButton';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root;
let container: HTMLElement;
beforeEach(() => {
  vi.useFakeTimers();
  container = document.body.appendChild(document.createElement('div'));
  root = createRoot(container);
});
afterEach(() => {
  act(() => root.unmount());
  container.remove();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function clipboard(writeText: ((text: string) => Promise<void>) | undefined) {
  vi.stubGlobal('navigator', { ...navigator, clipboard: writeText ? { writeText } : undefined });
}

async function click() {
  await act(async () => {
    container.querySelector('button')!.click();
  });
}

const button = () => container.querySelector('button')!;

describe('CopyButton', () => {
  it('copies, says "Copied" for a moment, then goes back', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    clipboard(writeText);
    const build = vi.fn(() => '{"big":true}');
    act(() => root.render(<CopyButton text={build} title="Copy the JSON" />));
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
    act(() => root.render(<CopyButton text="x" label="Copy id" />));
    expect(button().textContent).toBe('Copy id');
    await click();
    expect(button().textContent).toBe('Copy failed');
    expect(button().title).toBe('Copy failed: Write permission denied.');
    act(() => vi.advanceTimersByTime(5100));
    expect(button().textContent).toBe('Copy id');
  });

  it('says so on a page with no clipboard at all', async () => {
    clipboard(undefined);
    act(() => root.render(<CopyButton text="x" />));
    await click();
    expect(button().title).toBe('Copy failed: this page has no clipboard access');
  });
});
