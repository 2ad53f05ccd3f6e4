// @vitest-environment jsdom
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  REMEMBERED_HEADERS_KEY,
  createSavedReceivers,
  type SavedReceiversApi,
} from './saved-receivers-store';
import { SavedReceivers } from './SavedReceivers';
import { installKeymap } from '../ui/keymap';
import { reactRoot } from '../../test/helpers/react-root';

const A = 'http://127.0.0.1:3001/mcp';
const B = 'https://example.com/mcp';

const view = reactRoot();
let api: SavedReceiversApi;
// Escape comes through the app's one keymap, as on the page.
let uninstall: () => void;
beforeEach(() => {
  uninstall = installKeymap();
  localStorage.clear();
  sessionStorage.clear();
  api = createSavedReceivers({ local: localStorage, session: sessionStorage });
});
afterEach(() => {
  uninstall();
});

const $ = <T extends Element = HTMLElement>(selector: string) => view.container.querySelector<T>(selector);
const rows = () => [...view.container.querySelectorAll<HTMLElement>('[data-testid="saved-receiver-row"]')];
const row = (url: string) => rows().find((r) => r.dataset.url === url)!;
const click = (element: Element | null | undefined) => act(() => (element as HTMLElement).click());

function render(props: {
  onPick?: (url: string, headers: Record<string, string>) => void;
  currentUrl?: string;
}) {
  act(() =>
    view.root.render(
      <SavedReceivers onPick={props.onPick ?? (() => {})} currentUrl={props.currentUrl ?? ''} api={api} />,
    ),
  );
}

function open() {
  click($('[data-testid="saved-receivers-button"]'));
  expect($('[data-testid="saved-receivers-list"]')).not.toBeNull();
}

function type(input: HTMLInputElement, value: string) {
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
  act(() => {
    setter.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

function key(target: EventTarget, name: string) {
  const event = new KeyboardEvent('keydown', { key: name, bubbles: true, cancelable: true });
  act(() => {
    target.dispatchEvent(event);
  });
  return event;
}

describe('SavedReceivers', () => {
  it('opens a list of the saved receivers, most recent first, with a relay badge where chosen', () => {
    api.recordUse(A, {});
    api.recordUse(B, {});
    api.setRelay(A, true);
    render({});
    expect($('[data-testid="saved-receivers-list"]')).toBeNull();
    expect($('[data-testid="saved-receivers-button"]')?.getAttribute('title')).toBe('Saved receivers');
    open();
    expect(rows().map((r) => r.dataset.url)).toEqual([B, A]);
    expect(row(B).textContent).toContain('example.com/mcp');
    expect(row(A).textContent).toContain('relay');
    expect(row(B).textContent).not.toContain('relay');
  });

  it('picking a row calls onPick with its headers and closes the list', () => {
    api.recordUse(A, { Authorization: 'Bearer a' });
    api.recordUse(B, {});
    const onPick = vi.fn();
    render({ onPick, currentUrl: B });
    open();
    click(row(A).querySelector('button'));
    expect(onPick).toHaveBeenCalledExactlyOnceWith(A, { Authorization: 'Bearer a' });
    expect($('[data-testid="saved-receivers-list"]')).toBeNull();
  });

  it('closes on Escape and on a click outside, not on a click inside', () => {
    api.recordUse(A, {});
    render({});
    open();
    act(() =>
      $('[data-testid="saved-receivers-list"]')!.dispatchEvent(new Event('pointerdown', { bubbles: true })),
    );
    expect($('[data-testid="saved-receivers-list"]')).not.toBeNull();
    key(document.body, 'Escape');
    expect($('[data-testid="saved-receivers-list"]')).toBeNull();
    expect(document.activeElement).toBe($('[data-testid="saved-receivers-button"]'));

    open();
    act(() => document.body.dispatchEvent(new Event('pointerdown', { bubbles: true })));
    expect($('[data-testid="saved-receivers-list"]')).toBeNull();
  });

  it('shows Remember headers for the current receiver only, with the warning when ticked', () => {
    api.recordUse(A, { Authorization: 'Bearer secret' });
    api.recordUse(B, {});
    render({ currentUrl: A });
    open();
    expect(row(B).querySelector('[data-testid="remember-headers"]')).toBeNull();
    const checkbox = row(A).querySelector<HTMLInputElement>('[data-testid="remember-headers"]')!;
    expect(checkbox.checked).toBe(false);
    expect($('[data-testid="remember-warning"]')).toBeNull();

    click(checkbox);
    expect(checkbox.checked).toBe(true);
    expect($('[data-testid="remember-warning"]')?.textContent).toMatch(/unencrypted.*browser profile/);
    expect(JSON.parse(localStorage.getItem(REMEMBERED_HEADERS_KEY)!)).toEqual({
      [A]: { Authorization: 'Bearer secret' },
    });

    click(checkbox);
    expect(checkbox.checked).toBe(false);
    expect($('[data-testid="remember-warning"]')).toBeNull();
    expect(localStorage.getItem(REMEMBERED_HEADERS_KEY)).toBeNull();
    expect(api.headersFor(A)).toEqual({ Authorization: 'Bearer secret' });
  });

  it('renames inline without submitting a surrounding form; Escape cancels the edit only', () => {
    api.recordUse(A, {});
    render({});
    open();
    click(row(A).querySelector('[aria-label^="Rename"]'));
    const input = row(A).querySelector<HTMLInputElement>('input')!;
    expect(document.activeElement).toBe(input);
    type(input, 'Local everything');
    // jsdom has no implicit submission; a browser submits the form unless Enter's keydown is cancelled.
    expect(key(input, 'Enter').defaultPrevented).toBe(true);
    expect(api.list()[0]!.name).toBe('Local everything');
    expect(row(A).textContent).toContain('Local everything');

    click(row(A).querySelector('[aria-label^="Rename"]'));
    type(row(A).querySelector<HTMLInputElement>('input')!, 'discarded');
    key(row(A).querySelector('input')!, 'Escape');
    expect($('[data-testid="saved-receivers-list"]')).not.toBeNull();
    expect(api.list()[0]!.name).toBe('Local everything');
  });

  it('forget removes the row', () => {
    api.recordUse(A, {});
    api.recordUse(B, {});
    render({});
    open();
    click(row(A).querySelector('[aria-label^="Forget"]'));
    expect(rows().map((r) => r.dataset.url)).toEqual([B]);
    expect(api.list().map((r) => r.url)).toEqual([B]);
  });

  it('renders stored names and URLs as text, never as HTML', () => {
    localStorage.setItem(
      'taskscope.receivers',
      JSON.stringify([
        { url: 'https://x.example/<img src=x onerror=alert(1)>', name: '<b id="bold">hi</b>' },
      ]),
    );
    api.reload();
    render({});
    open();
    expect(view.container.querySelector('img, #bold')).toBeNull();
    expect(rows()[0]!.textContent).toContain('<b id="bold">hi</b>');
  });
});
