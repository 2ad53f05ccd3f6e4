// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  innermostLayer,
  installKeymap,
  listShortcuts,
  openLayer,
  registerList,
  registerShortcut,
  type EscapeLayer,
} from './keymap';

let uninstall: () => void;
const cleanups: (() => void)[] = [];
beforeEach(() => {
  uninstall = installKeymap(window);
});
afterEach(() => {
  uninstall();
  for (const cleanup of cleanups.splice(0)) cleanup();
  document.body.replaceChildren();
});

function press(key: string, target: EventTarget = document.body, init: KeyboardEventInit = {}) {
  const event = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init });
  target.dispatchEvent(event);
  return event;
}

function layer(kind: EscapeLayer['kind'], extra: Partial<EscapeLayer> = {}) {
  const close = vi.fn();
  cleanups.push(openLayer({ kind, close, ...extra }));
  return close;
}

describe('Escape', () => {
  it('closes the innermost layer only: a menu before a dialog before a drawer, whatever opened first', () => {
    const menu = layer('menu');
    const drawer = layer('drawer');
    const dialog = layer('dialog');
    // The dialog opening closed the menu beneath it.
    expect(menu).toHaveBeenCalledTimes(1);
    const event = press('Escape');
    expect(event.defaultPrevented).toBe(true);
    expect(dialog).toHaveBeenCalledTimes(1);
    expect(drawer).not.toHaveBeenCalled();
  });

  it('among layers of one kind, the one opened last is innermost', () => {
    const first = layer('drawer');
    const second = layer('drawer');
    press('Escape');
    expect(second).toHaveBeenCalledOnce();
    expect(first).not.toHaveBeenCalled();
  });

  it('leaves a layer that closes itself to do so, and closes nothing beneath it on the same press', () => {
    const drawer = layer('drawer');
    let open = true;
    cleanups.push(openLayer({ kind: 'menu', close: () => {}, closesItself: true, isOpen: () => open }));
    // The popover's own listener runs before the keymap's and closes it.
    const own = () => (open = false);
    document.addEventListener('keydown', own);
    const event = press('Escape');
    document.removeEventListener('keydown', own);
    expect(event.defaultPrevented).toBe(false);
    expect(drawer).not.toHaveBeenCalled();
    // Next press: the popover is gone, so the drawer goes.
    press('Escape');
    expect(drawer).toHaveBeenCalledOnce();
  });

  it('skips layers that say they are closed, and does nothing when a field used the key', () => {
    const drawer = layer('drawer');
    cleanups.push(openLayer({ kind: 'menu', close: vi.fn(), isOpen: () => false }));
    expect(innermostLayer()?.kind).toBe('drawer');
    const input = document.body.appendChild(document.createElement('input'));
    input.addEventListener('keydown', (e) => e.preventDefault());
    press('Escape', input);
    expect(drawer).not.toHaveBeenCalled();
    press('Escape');
    expect(drawer).toHaveBeenCalledOnce();
  });
});

describe('shortcuts', () => {
  it('run outside text fields only, and not with modifiers', () => {
    const run = vi.fn();
    cleanups.push(
      registerShortcut({
        id: 't.slash',
        keys: ['/'],
        description: 'x',
        group: 'g',
        match: (e) => e.key === '/',
        run,
      }),
    );
    const input = document.body.appendChild(document.createElement('input'));
    const checkbox = document.body.appendChild(document.createElement('input'));
    checkbox.type = 'checkbox';
    const textarea = document.body.appendChild(document.createElement('textarea'));
    press('/', input);
    press('/', textarea);
    press('/', document.body, { ctrlKey: true });
    expect(run).not.toHaveBeenCalled();
    expect(press('/').defaultPrevented).toBe(true);
    press('/', checkbox);
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('are held back while a modal dialog is open', () => {
    const run = vi.fn();
    cleanups.push(
      registerShortcut({
        id: 't.q',
        keys: ['?'],
        description: 'x',
        group: 'g',
        match: (e) => e.key === '?',
        run,
      }),
    );
    cleanups.push(openLayer({ kind: 'dialog', close: () => {} }));
    press('?');
    expect(run).not.toHaveBeenCalled();
  });

  it('are listed in the order registered; a second with the same id replaces the first', () => {
    const a = registerShortcut({ id: 't.a', keys: ['a'], description: 'A', group: 'g' });
    const b = registerShortcut({ id: 't.b', keys: ['b'], description: 'B', group: 'g' });
    const a2 = registerShortcut({ id: 't.a', keys: ['a'], description: 'A again', group: 'g' });
    expect(
      listShortcuts()
        .filter((s) => s.id.startsWith('t.'))
        .map((s) => s.description),
    ).toEqual(['B', 'A again']);
    // The replaced registration's cleanup no longer removes the new one.
    a();
    expect(listShortcuts().some((s) => s.description === 'A again')).toBe(true);
    a2();
    b();
    expect(listShortcuts().some((s) => s.id.startsWith('t.'))).toBe(false);
  });
});

describe('lists', () => {
  function list(count: number) {
    const ul = document.body.appendChild(document.createElement('ul'));
    const buttons = Array.from({ length: count }, (_, i) => {
      const button = ul
        .appendChild(document.createElement('li'))
        .appendChild(document.createElement('button'));
      button.dataset.keynavItem = '';
      button.textContent = `item ${i}`;
      return button;
    });
    cleanups.push(registerList(ul));
    return buttons;
  }

  it('up and down move focus through the focused list and stop at its ends', () => {
    const [a, b, c] = list(3);
    a!.focus();
    press('ArrowDown', a);
    expect(document.activeElement).toBe(b);
    press('ArrowDown', b);
    press('ArrowDown', c);
    expect(document.activeElement).toBe(c);
    press('ArrowUp', c);
    expect(document.activeElement).toBe(b);
  });

  it('leave arrows alone outside lists and in fields', () => {
    list(2);
    const outside = document.body.appendChild(document.createElement('button'));
    outside.focus();
    expect(press('ArrowDown', outside).defaultPrevented).toBe(false);
    expect(document.activeElement).toBe(outside);
    // A text field inside a list (a rename box, a filter) keeps its arrows: they move the caret there.
    const [first] = list(2);
    const field = first!.parentElement!.appendChild(document.createElement('input'));
    field.focus();
    expect(press('ArrowDown', field).defaultPrevented).toBe(false);
    expect(press('ArrowUp', field).defaultPrevented).toBe(false);
    expect(document.activeElement).toBe(field);
  });

  it('use a list its own mover when it has one (a virtual list scrolling rows in)', () => {
    const ul = document.body.appendChild(document.createElement('div'));
    const row = ul.appendChild(document.createElement('button'));
    const mover = vi.fn(() => true);
    cleanups.push(registerList(ul, mover));
    press('ArrowUp', row);
    expect(mover).toHaveBeenCalledWith(row, -1);
  });
});
