import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach } from 'vitest';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/**
 * A React root in a fresh container for each test of the file, unmounted and removed after it (jsdom tests).
 * Call it at the top of the file, before hooks that render.
 */
export function reactRoot(): { readonly root: Root; readonly container: HTMLElement } {
  let root: Root | undefined;
  let container: HTMLElement | undefined;
  beforeEach(() => {
    container = document.createElement('div');
    document.body.append(container);
    root = createRoot(container);
  });
  afterEach(() => {
    act(() => root?.unmount());
    container?.remove();
  });
  return {
    get root() {
      return root!;
    },
    get container() {
      return container!;
    },
  };
}
