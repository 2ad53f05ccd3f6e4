// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { ResultImage, base64Bytes, upscale } from './ResultImage';
import { installKeymap } from '../ui/keymap';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAUAAAAFCAYAAACNbyblAAAAHElEQVQI12P4//8/w38GIAXDIBKE0DHxgljNBAAO9TXL0Y4OHwAAAABJRU5ErkJggg==';

describe('image helpers', () => {
  it('counts the bytes behind base64 without decoding, padding and line breaks aside', () => {
    expect(base64Bytes(TINY_PNG)).toBe(atob(TINY_PNG).length);
    expect(base64Bytes('YQ==')).toBe(1);
    expect(base64Bytes('YWI=')).toBe(2);
    expect(base64Bytes('YWJj\nZGVm')).toBe(6);
    expect(base64Bytes('')).toBe(0);
  });

  it('draws tiny images larger by whole factors, and leaves fair-sized ones alone', () => {
    expect(upscale({ width: 5, height: 5 })).toBe(25);
    expect(upscale({ width: 10, height: 40 })).toBe(3);
    expect(upscale({ width: 128, height: 16 })).toBe(1);
    expect(upscale({ width: 4000, height: 3000 })).toBe(1);
    expect(upscale({ width: 0, height: 0 })).toBe(128);
  });
});

describe('ResultImage', () => {
  it('says the type and bytes at once, and the pixel size once the image has loaded', () => {
    const container = document.body.appendChild(document.createElement('div'));
    const root = createRoot(container);
    act(() =>
      root.render(
        <ResultImage src={`data:image/png;base64,${TINY_PNG}`} data={TINY_PNG} mimeType="image/png" />,
      ),
    );
    const caption = container.querySelector('[data-testid="image-size"]')!;
    expect(caption.textContent).toBe('image/png · loading · 85 B');
    const img = container.querySelector<HTMLImageElement>('[data-testid="result-image"]')!;
    Object.defineProperty(img, 'naturalWidth', { value: 5 });
    Object.defineProperty(img, 'naturalHeight', { value: 5 });
    act(() => img.dispatchEvent(new Event('load')));
    expect(caption.textContent).toBe('image/png · 5×5 px · 85 B · shown ×25');
    expect(img.style.width).toBe('125px');
    act(() => root.unmount());
    container.remove();
  });
});

describe('ResultImage zoomed', () => {
  it('opens larger in a dialog named by its size on click, and Escape closes it, focus back on the image', () => {
    // jsdom has <dialog> but not its modal methods: the open attribute stands in for them.
    HTMLDialogElement.prototype.showModal ??= function (this: HTMLDialogElement) {
      this.setAttribute('open', '');
    };
    HTMLDialogElement.prototype.close ??= function (this: HTMLDialogElement) {
      this.removeAttribute('open');
    };
    // Escape reaches the dialog through the app's keymap, as on the page.
    const uninstall = installKeymap(window);
    const container = document.body.appendChild(document.createElement('div'));
    const root = createRoot(container);
    act(() =>
      root.render(
        <ResultImage src={`data:image/png;base64,${TINY_PNG}`} data={TINY_PNG} mimeType="image/png" />,
      ),
    );
    const img = container.querySelector<HTMLImageElement>('[data-testid="result-image"]')!;
    Object.defineProperty(img, 'naturalWidth', { value: 5 });
    Object.defineProperty(img, 'naturalHeight', { value: 5 });
    act(() => img.dispatchEvent(new Event('load')));
    const zoom = container.querySelector<HTMLButtonElement>('button[aria-label^="Zoom the image"]')!;
    expect(zoom.getAttribute('aria-label')).toBe('Zoom the image (5×5 px)');
    act(() => {
      zoom.focus();
      zoom.click();
    });
    const dialog = container.querySelector<HTMLDialogElement>('dialog[data-testid="image-zoom"]')!;
    expect(dialog.getAttribute('aria-label')).toBe('Image, 5×5 px');
    const zoomed = dialog.querySelector<HTMLImageElement>('[data-testid="zoomed-image"]')!;
    expect(parseFloat(zoomed.style.width)).toBeGreaterThan(parseFloat(img.style.width) * 2);
    act(() => {
      document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    });
    expect(container.querySelector('dialog')).toBeNull();
    expect(document.activeElement).toBe(zoom);
    act(() => root.unmount());
    container.remove();
    uninstall();
  });
});
