import { useCallback, useEffect, useRef, useSyncExternalStore } from 'react';
import {
  installKeymap,
  listShortcuts,
  openLayer,
  registerList,
  registerShortcut,
  subscribeShortcuts,
  type EscapeLayer,
  type LayerKind,
  type Shortcut,
} from './keymap';

/** Installs the app's keymap for as long as the calling component (the shell) is mounted. */
export function useKeymap(): void {
  useEffect(() => installKeymap(), []);
}

/**
 * Registers a shortcut while mounted. `run` may change on every render: the latest one is called, and the
 * registration itself stays put.
 */
export function useShortcut(shortcut: Shortcut): void {
  const latest = useRef(shortcut);
  useEffect(() => {
    latest.current = shortcut;
  });
  const { id, keys, description, group } = shortcut;
  const keyList = JSON.stringify(keys);
  const listedOnly = !shortcut.match;
  useEffect(
    () =>
      registerShortcut({
        id,
        keys: JSON.parse(keyList) as string[],
        description,
        group,
        ...(listedOnly
          ? {}
          : {
              match: (event) => latest.current.match?.(event) ?? false,
              run: (event) => latest.current.run?.(event),
            }),
      }),
    [id, keyList, description, group, listedOnly],
  );
}

export function useShortcutList(): readonly Shortcut[] {
  return useSyncExternalStore(subscribeShortcuts, listShortcuts, listShortcuts);
}

/** While `open`, Escape closes this layer when it is the innermost one. */
export function useEscapeLayer(
  open: boolean,
  close: () => void,
  kind: LayerKind,
  options: Pick<EscapeLayer, 'closesItself' | 'isOpen'> = {},
): void {
  const latest = useRef(close);
  useEffect(() => {
    latest.current = close;
  });
  const { closesItself, isOpen } = options;
  const isOpenRef = useRef(isOpen);
  useEffect(() => {
    isOpenRef.current = isOpen;
  });
  const watched = isOpen !== undefined;
  useEffect(() => {
    if (!open) return;
    return openLayer({
      kind,
      closesItself,
      close: () => latest.current(),
      isOpen: watched ? () => isOpenRef.current?.() ?? false : undefined,
    });
  }, [open, kind, closesItself, watched]);
}

/**
 * A ref callback that makes its element a list up/down move through (see registerList), for as long as the
 * element is mounted: lists that appear only once their data has come still get it.
 */
export function useListNavigation(
  mover?: (from: HTMLElement, step: 1 | -1) => boolean,
): (element: HTMLElement | null) => (() => void) | undefined {
  const latest = useRef(mover);
  useEffect(() => {
    latest.current = mover;
  });
  const custom = mover !== undefined;
  return useCallback(
    (element: HTMLElement | null) => {
      if (!element) return undefined;
      return registerList(
        element,
        custom ? (from, step) => latest.current?.(from, step) ?? false : undefined,
      );
    },
    [custom],
  );
}
