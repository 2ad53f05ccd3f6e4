// @vitest-environment jsdom
import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { useConnection } from '../state/connection-store';
import { reactRoot } from '../../test/helpers/react-root';
import { ConnectionProblem } from './ConnectionProblem';

const connects = vi.hoisted(() => [] as string[]);
vi.mock('./actions', () => ({
  connect: (url: string) => {
    connects.push(url);
    return Promise.resolve();
  },
}));

const view = reactRoot();
const url = 'http://127.0.0.1:9/mcp';
beforeEach(() => {
  connects.length = 0;
  // jsdom has no modal dialogs: open and close set the attribute, as the browser's do.
  HTMLDialogElement.prototype.showModal ??= function (this: HTMLDialogElement) {
    this.setAttribute('open', '');
  };
  HTMLDialogElement.prototype.close ??= function (this: HTMLDialogElement) {
    this.removeAttribute('open');
  };
});

const render = () => {
  act(() => view.root.render(<ConnectionProblem />));
  return view.container.querySelector<HTMLElement>('[data-testid="connection-problem-pane"]')!;
};

describe('ConnectionProblem', () => {
  it('a receiver without CORS: says so, and offers the relay, confirmed in a dialog naming the URL', () => {
    useConnection.setState({
      id: 1,
      url,
      headers: {},
      status: 'error',
      viaRelay: false,
      error: {
        kind: 'cors-or-network',
        diagnosis: 'cors',
        message: `The receiver at ${url} answers, but does not allow this page's origin by CORS.`,
      },
    });
    const pane = render();
    expect(pane.querySelector('h1')?.textContent).toContain('CORS');
    expect(pane.querySelector('[data-testid="connection-error"]')?.textContent).toContain('answers, but');
    // Red is for the title alone: the explanation is in the ordinary text colour.
    expect(pane.querySelector('[data-testid="connection-error"]')?.className).not.toMatch(/red/);
    const offer = pane.querySelector<HTMLButtonElement>('[data-testid="relay-offer"]')!;
    expect(offer.textContent).toBe('Connect through the local relay');
    act(() => offer.click());
    const dialog = view.container.querySelector('dialog')!;
    expect(dialog.textContent).toContain('Connect through the local relay');
    expect(dialog.textContent).toContain(url);
    act(() => dialog.querySelector<HTMLButtonElement>('[data-testid="relay-confirm"]')!.click());
    expect(connects).toEqual([url]);
  });

  it('nothing listening: unreachable, in its own words, with the next try counted down; no relay offered', () => {
    useConnection.setState({
      id: 1,
      url,
      headers: {},
      status: 'unreachable',
      viaRelay: false,
      retryAt: Date.now() + 5000,
      attempt: 2,
      error: {
        kind: 'cors-or-network',
        diagnosis: 'unreachable',
        message: `Nothing answers at ${url}: the connection was refused or the host is unknown. Is the receiver running?`,
      },
    });
    const pane = render();
    expect(pane.getAttribute('role')).toBe('alert');
    expect(pane.querySelector('h1')?.textContent).toBe('Receiver unreachable');
    expect(pane.textContent).toContain(`Nothing answers at ${url}`);
    expect(pane.textContent).toContain('tries again by itself');
    expect(pane.querySelector('[data-testid="problem-retry"]')?.textContent).toMatch(
      /^Next try in [1-5] s \(attempt 2\)$/,
    );
    expect(pane.querySelector('[data-testid="relay-offer"]')).toBeNull();
    act(() => pane.querySelector<HTMLButtonElement>('[data-testid="problem-retry-now"]')!.click());
    expect(connects).toEqual([url]);
  });
});
