/**
 * The app's one keymap: shortcuts registered by whichever view owns them, Escape layers (menus, dialogs,
 * drawers) closed innermost first, and up/down moving through the list that has focus. One listener on the
 * window serves them all, so two views can never both answer the same key.
 */

export interface Shortcut {
  id: string;
  /** The keys as the shortcuts overlay shows them: ['Shift', '?'] or ['↑', '↓']. */
  keys: readonly string[];
  description: string;
  group: string;
  /** Matches the event; absent for entries listed only (Escape and arrows are handled by the keymap itself). */
  match?: (event: KeyboardEvent) => boolean;
  run?: (event: KeyboardEvent) => void;
}

/** How deep a layer sits: a menu is closed before a dialog, a dialog before a drawer. */
export const LAYER_RANK = { drawer: 1, dialog: 2, menu: 3 } as const;
export type LayerKind = keyof typeof LAYER_RANK;

export interface EscapeLayer {
  kind: LayerKind;
  close: () => void;
  /**
   * A layer whose own component closes it on Escape (a popover with its own listener): the keymap only
   * lets it be the innermost one, so the same key press does not close the layer beneath as well.
   */
  closesItself?: boolean;
  /** For layers the keymap cannot see open or closed by itself; assumed open while registered otherwise. */
  isOpen?: () => boolean;
}

type ListMover = (from: HTMLElement, step: 1 | -1) => boolean;

interface Registered<T> {
  seq: number;
  value: T;
}

let seq = 0;
const shortcuts = new Map<string, Registered<Shortcut>>();
const layers = new Set<Registered<EscapeLayer>>();
const listMovers = new WeakMap<HTMLElement, ListMover>();
const listeners = new Set<() => void>();
let snapshot: readonly Shortcut[] = [];

function changed() {
  snapshot = [...shortcuts.values()].sort((a, b) => a.seq - b.seq).map((r) => r.value);
  for (const listener of listeners) listener();
}

/** Adds a shortcut until the returned function is called; a later one with the same id replaces it. */
export function registerShortcut(shortcut: Shortcut): () => void {
  const entry = { seq: ++seq, value: shortcut };
  shortcuts.set(shortcut.id, entry);
  changed();
  return () => {
    if (shortcuts.get(shortcut.id) !== entry) return;
    shortcuts.delete(shortcut.id);
    changed();
  };
}

export function listShortcuts(): readonly Shortcut[] {
  return snapshot;
}

export function subscribeShortcuts(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** An open menu, dialog or drawer that Escape closes; returns the function that says it has gone. */
export function openLayer(layer: EscapeLayer): () => void {
  const entry = { seq: ++seq, value: layer };
  // A modal dialog covers the menus beneath it: they close rather than wait, hidden, for the next Escape.
  if (layer.kind === 'dialog')
    for (const other of layers)
      if (other.value.kind === 'menu' && !other.value.closesItself) {
        layers.delete(other);
        other.value.close();
      }
  layers.add(entry);
  return () => void layers.delete(entry);
}

export function innermostLayer(): EscapeLayer | undefined {
  let best: Registered<EscapeLayer> | undefined;
  for (const entry of layers) {
    if (entry.value.isOpen && !entry.value.isOpen()) continue;
    const rank = LAYER_RANK[entry.value.kind];
    if (
      !best ||
      rank > LAYER_RANK[best.value.kind] ||
      (rank === LAYER_RANK[best.value.kind] && entry.seq > best.seq)
    )
      best = entry;
  }
  return best?.value;
}

export function hasOpenDialog(): boolean {
  for (const entry of layers)
    if (entry.value.kind === 'dialog' && (!entry.value.isOpen || entry.value.isOpen())) return true;
  return false;
}

/**
 * Marks `element` as a list that up/down move through. Without a mover, focus goes to the previous or next
 * `[data-keynav-item]` inside it; a virtual list passes its own, since its rows come and go as it scrolls.
 */
export function registerList(element: HTMLElement, mover?: ListMover): () => void {
  element.dataset.keynav = '';
  if (mover) listMovers.set(element, mover);
  return () => {
    delete element.dataset.keynav;
    listMovers.delete(element);
  };
}

export function moveInItems(list: HTMLElement, from: HTMLElement, step: 1 | -1): boolean {
  const items = [...list.querySelectorAll<HTMLElement>('[data-keynav-item]')].filter(
    (item) => !(item as HTMLButtonElement).disabled,
  );
  const at = items.findIndex((item) => item === from || item.contains(from));
  const next = items[at === -1 ? (step === 1 ? 0 : items.length - 1) : at + step];
  if (!next) return false;
  next.focus();
  return true;
}

/** Where typing goes: keys there are text, not shortcuts. */
export function isTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (!(target instanceof HTMLInputElement)) return false;
  return !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file', 'image'].includes(
    target.type,
  );
}

function moveInFocusedList(event: KeyboardEvent): boolean {
  const from = event.target;
  if (!(from instanceof HTMLElement) || isTextField(from)) return false;
  const list = from.closest<HTMLElement>('[data-keynav]');
  if (!list) return false;
  const step = event.key === 'ArrowDown' ? 1 : -1;
  (listMovers.get(list) ?? ((start, s) => moveInItems(list, start, s)))(from, step);
  // Handled even at either end: the key would otherwise scroll the list away from the focused row.
  return true;
}

/** The layer innermost when a key press began, before any listener on the way could close one. */
const innermostAtStart = new WeakMap<KeyboardEvent, EscapeLayer | undefined>();

function onCapture(event: KeyboardEvent) {
  if (event.key === 'Escape') innermostAtStart.set(event, innermostLayer());
}

function onKeyDown(event: KeyboardEvent) {
  // A field or widget that used the key itself (a rename box cancelling its edit) says so by preventing it.
  if (event.defaultPrevented) return;
  // Keys typed into an input method (composing Japanese, say) are the method's, Escape included.
  if (event.isComposing || event.keyCode === 229) return;
  if (event.key === 'Escape') {
    const layer = innermostAtStart.has(event) ? innermostAtStart.get(event) : innermostLayer();
    if (!layer || layer.closesItself) return;
    event.preventDefault();
    layer.close();
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
  // A modal dialog has the page to itself: only Escape reaches past it.
  if (hasOpenDialog()) return;
  if ((event.key === 'ArrowDown' || event.key === 'ArrowUp') && moveInFocusedList(event)) {
    event.preventDefault();
    return;
  }
  if (isTextField(event.target)) return;
  for (const shortcut of snapshot) {
    if (shortcut.match?.(event) && shortcut.run) {
      event.preventDefault();
      shortcut.run(event);
      return;
    }
  }
}

/**
 * Listens on the window: in the capture phase only to note the innermost layer, and in the bubble phase to
 * act, after the focused element had its say.
 */
export function installKeymap(target: Window = window): () => void {
  target.addEventListener('keydown', onCapture, true);
  target.addEventListener('keydown', onKeyDown);
  return () => {
    target.removeEventListener('keydown', onCapture, true);
    target.removeEventListener('keydown', onKeyDown);
  };
}

/** Focus moves back to `fallback` when it was inside what is closing, rather than falling to <body>. */
export function restoreFocus(closing: HTMLElement | null, fallback: HTMLElement | null): void {
  const active = document.activeElement;
  if (fallback && (!active || active === document.body || closing?.contains(active))) fallback.focus();
}
