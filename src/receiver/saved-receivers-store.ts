import { capMap } from '../mcp';
import { createStore, useStore, type StoreApi } from 'zustand';

export interface SavedReceiver {
  url: string;
  name: string;
  lastUsedAt: number;
  /** Reach this receiver through the local relay; set only when the person chose it. */
  relay?: boolean;
  /** Keep its headers in localStorage across sessions instead of for this tab only. */
  rememberHeaders?: boolean;
}

export type HeaderMap = Record<string, string>;

export const RECEIVERS_KEY = 'taskscope.receivers';
export const TAB_HEADERS_KEY = 'taskscope.headers';
export const REMEMBERED_HEADERS_KEY = 'taskscope.rememberedHeaders';
export const MAX_RECEIVERS = 20;
export const MAX_STRING = 2048;
const MAX_NAME = 60;
const MAX_HEADERS_PER_RECEIVER = 50;
/** Tab headers may outlive their list entry (another tab forgot it); bound the map all the same. */
const MAX_HEADER_MAPS = 50;
/** Anything bigger than this was not written by us; not worth parsing. */
const MAX_STORED_CHARS = 1_000_000;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
/** fetch() throws on a header value with a line break or NUL; such a value cannot have come from us. */
const BAD_HEADER_VALUE = /[\r\n\0]/;

/**
 * A Storage, or a getter for one: reading window.localStorage itself throws SecurityError where storage is
 * blocked, so the default is looked up lazily, on every use.
 */
export type StorageSource = Storage | (() => Storage | null | undefined);

export interface SavedReceiversOptions {
  local?: StorageSource;
  session?: StorageSource;
  now?: () => number;
}

export interface SavedReceiversState {
  receivers: SavedReceiver[];
}

export interface SavedReceiversApi {
  store: StoreApi<SavedReceiversState>;
  list(): SavedReceiver[];
  recordUse(url: string, headers: HeaderMap): void;
  rename(url: string, name: string): void;
  forget(url: string): void;
  headersFor(url: string): HeaderMap;
  setRemember(url: string, remember: boolean, headers: HeaderMap): void;
  setRelay(url: string, on: boolean): void;
  relayChosen(url: string): boolean;
  /** Re-reads the list from storage (another tab changed it). */
  reload(): void;
}

/** The URL's host and path, for a receiver the person has not named. */
export function defaultName(url: string): string {
  let name = url;
  try {
    const parsed = new URL(url);
    name = parsed.host + (parsed.pathname === '/' ? '' : parsed.pathname);
  } catch {
    // Not a URL after all: its text is still the best name there is.
  }
  return name.length > MAX_NAME ? `${name.slice(0, MAX_NAME - 1)}…` : name;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A URL that is longer than the cap is dropped, not cut: a cut URL names another receiver. */
const validUrl = (value: unknown): value is string =>
  typeof value === 'string' && value.trim() !== '' && value.length <= MAX_STRING;

export function parseReceivers(value: unknown): SavedReceiver[] {
  if (!Array.isArray(value)) return [];
  const seen = new Set<string>();
  const out: SavedReceiver[] = [];
  for (const item of value) {
    if (out.length >= MAX_RECEIVERS) break;
    if (!isRecord(item) || !validUrl(item.url) || seen.has(item.url)) continue;
    seen.add(item.url);
    const name =
      typeof item.name === 'string' && item.name.trim() !== ''
        ? item.name.slice(0, MAX_STRING)
        : defaultName(item.url);
    const lastUsedAt =
      typeof item.lastUsedAt === 'number' && Number.isFinite(item.lastUsedAt) ? item.lastUsedAt : 0;
    const receiver: SavedReceiver = { url: item.url, name, lastUsedAt };
    if (typeof item.relay === 'boolean') receiver.relay = item.relay;
    if (typeof item.rememberHeaders === 'boolean') receiver.rememberHeaders = item.rememberHeaders;
    out.push(receiver);
  }
  return out;
}

export function parseHeaders(value: unknown): HeaderMap | undefined {
  if (!isRecord(value)) return undefined;
  const entries: [string, string][] = [];
  for (const [name, v] of Object.entries(value)) {
    if (entries.length >= MAX_HEADERS_PER_RECEIVER) break;
    if (typeof v !== 'string' || !HEADER_NAME.test(name)) continue;
    if (name.length > MAX_STRING || v.length > MAX_STRING || BAD_HEADER_VALUE.test(v)) continue;
    entries.push([name, v]);
  }
  // fromEntries defines own properties, so a header called __proto__ stays a header.
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

export function parseHeaderMap(value: unknown): Map<string, HeaderMap> {
  const map = new Map<string, HeaderMap>();
  if (!isRecord(value)) return map;
  for (const [url, headers] of Object.entries(value)) {
    if (map.size >= MAX_HEADER_MAPS) break;
    const parsed = validUrl(url) ? parseHeaders(headers) : undefined;
    if (parsed) map.set(url, parsed);
  }
  return map;
}

function resolve(source: StorageSource | undefined): Storage | null {
  if (!source) return null;
  // Storage itself is never callable, so a function here is the getter.
  return typeof source === 'function' ? (source() ?? null) : source;
}

type Read = { ok: true; value: unknown } | { ok: false };

/** ok:false only when storage could not be read at all; junk reads as ok with an undefined value. */
function readJson(source: StorageSource | undefined, key: string): Read {
  let raw: string | null;
  try {
    const storage = resolve(source);
    if (!storage) return { ok: false };
    raw = storage.getItem(key);
  } catch {
    return { ok: false };
  }
  if (raw === null || raw.length > MAX_STORED_CHARS) return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch {
    return { ok: true, value: undefined };
  }
}

function writeJson(source: StorageSource | undefined, key: string, value: unknown, empty: boolean) {
  try {
    const storage = resolve(source);
    if (!storage) return;
    if (empty) storage.removeItem(key);
    else storage.setItem(key, JSON.stringify(value));
  } catch {
    // Quota or a blocked storage: the in-memory copy keeps working for this page.
  }
}

function windowStorage(kind: 'localStorage' | 'sessionStorage'): () => Storage | null {
  return () => (typeof window === 'undefined' ? null : window[kind]);
}

const sameHeaders = (a: HeaderMap | undefined, b: HeaderMap | undefined) =>
  JSON.stringify(a ?? {}) === JSON.stringify(b ?? {});

export function createSavedReceivers(options: SavedReceiversOptions = {}): SavedReceiversApi {
  const local = options.local ?? windowStorage('localStorage');
  const session = options.session ?? windowStorage('sessionStorage');
  const now = options.now ?? Date.now;

  // Each read prefers what storage holds now (another tab may have written since) and falls back to the
  // last known copy when storage cannot be read at all, so a blocked storage still works for this page.
  const loadReceivers = (fallback: SavedReceiver[]) => {
    const read = readJson(local, RECEIVERS_KEY);
    return read.ok ? parseReceivers(read.value) : fallback;
  };
  let tabHeaders = new Map<string, HeaderMap>();
  let rememberedHeaders = new Map<string, HeaderMap>();
  const loadTab = () => {
    const read = readJson(session, TAB_HEADERS_KEY);
    if (read.ok) tabHeaders = parseHeaderMap(read.value);
    return tabHeaders;
  };
  const loadRemembered = () => {
    const read = readJson(local, REMEMBERED_HEADERS_KEY);
    if (read.ok) rememberedHeaders = parseHeaderMap(read.value);
    return rememberedHeaders;
  };

  const store = createStore<SavedReceiversState>()(() => ({ receivers: loadReceivers([]) }));
  loadTab();
  loadRemembered();

  const saveReceivers = (receivers: SavedReceiver[]) => {
    store.setState({ receivers });
    writeJson(local, RECEIVERS_KEY, receivers, receivers.length === 0);
  };
  const saveTab = (map: Map<string, HeaderMap>) => {
    tabHeaders = map;
    writeJson(session, TAB_HEADERS_KEY, Object.fromEntries(map), map.size === 0);
  };
  const saveRemembered = (map: Map<string, HeaderMap>) => {
    rememberedHeaders = map;
    writeJson(local, REMEMBERED_HEADERS_KEY, Object.fromEntries(map), map.size === 0);
  };
  const setHeaders = (map: Map<string, HeaderMap>, url: string, headers: HeaderMap) => {
    const next = new Map(map);
    const clean = parseHeaders(headers);
    next.delete(url);
    // Re-inserted last so that, past the cap, the oldest headers are the ones dropped.
    if (clean) next.set(url, clean);
    capMap(next, MAX_HEADER_MAPS);
    return next;
  };
  const withoutUrls = (map: Map<string, HeaderMap>, urls: string[]) => {
    if (!urls.some((url) => map.has(url))) return map;
    const next = new Map(map);
    for (const url of urls) next.delete(url);
    return next;
  };

  /** Puts an entry at the front (creating it if need be), keeps the cap and drops what fell off. */
  const upsertFront = (url: string, change: (entry: SavedReceiver) => SavedReceiver) => {
    const current = loadReceivers(store.getState().receivers);
    const existing = current.find((r) => r.url === url);
    const entry = change(existing ?? { url, name: defaultName(url), lastUsedAt: now() });
    const next = [entry, ...current.filter((r) => r.url !== url)];
    const dropped = next.splice(MAX_RECEIVERS).map((r) => r.url);
    saveReceivers(next);
    if (dropped.length > 0) {
      // Credentials of a receiver no longer listed would linger with no way to forget them.
      const remembered = loadRemembered();
      const keptRemembered = withoutUrls(remembered, dropped);
      if (keptRemembered !== remembered) saveRemembered(keptRemembered);
    }
  };
  /** Changes an entry in place, without touching the order; unknown URLs are left alone. */
  const update = (url: string, change: (entry: SavedReceiver) => SavedReceiver) => {
    const current = loadReceivers(store.getState().receivers);
    if (!current.some((r) => r.url === url)) return false;
    saveReceivers(current.map((r) => (r.url === url ? change(r) : r)));
    return true;
  };

  const api: SavedReceiversApi = {
    store,
    list: () => store.getState().receivers,

    recordUse(url, headers) {
      if (!validUrl(url)) return;
      let remember = false;
      upsertFront(url, (entry) => {
        remember = entry.rememberHeaders === true;
        return { ...entry, lastUsedAt: now() };
      });
      // The tab copy is written either way: it wins over the remembered one, so it must not go stale.
      saveTab(setHeaders(loadTab(), url, headers));
      if (remember) saveRemembered(setHeaders(loadRemembered(), url, headers));
    },

    rename(url, name) {
      const trimmed = name.trim().slice(0, MAX_STRING);
      update(url, (entry) => ({ ...entry, name: trimmed === '' ? defaultName(url) : trimmed }));
    },

    forget(url) {
      const current = loadReceivers(store.getState().receivers);
      saveReceivers(current.filter((r) => r.url !== url));
      const remembered = loadRemembered();
      if (remembered.has(url)) saveRemembered(withoutUrls(remembered, [url]));
      const tab = loadTab();
      if (tab.has(url)) saveTab(withoutUrls(tab, [url]));
    },

    headersFor(url) {
      return { ...(loadTab().get(url) ?? loadRemembered().get(url) ?? {}) };
    },

    setRemember(url, remember, headers) {
      if (!validUrl(url)) return;
      const known = update(url, (entry) => ({ ...entry, rememberHeaders: remember }));
      if (!known) upsertFront(url, (entry) => ({ ...entry, rememberHeaders: remember }));
      const tab = loadTab();
      const given = parseHeaders(headers);
      if (remember) {
        const toKeep = given ?? tab.get(url);
        if (toKeep) saveRemembered(setHeaders(loadRemembered(), url, toKeep));
        if (given && !sameHeaders(given, tab.get(url))) saveTab(setHeaders(tab, url, given));
        return;
      }
      const remembered = loadRemembered();
      // They stay for this tab: the person only asked not to keep them past it.
      const forTab = given ?? tab.get(url) ?? remembered.get(url);
      if (forTab && !sameHeaders(forTab, tab.get(url))) saveTab(setHeaders(tab, url, forTab));
      if (remembered.has(url)) saveRemembered(withoutUrls(remembered, [url]));
    },

    setRelay(url, on) {
      if (!validUrl(url)) return;
      if (!update(url, (entry) => ({ ...entry, relay: on }))) {
        upsertFront(url, (entry) => ({ ...entry, relay: on }));
      }
    },

    relayChosen(url) {
      return loadReceivers(store.getState().receivers).find((r) => r.url === url)?.relay === true;
    },

    reload() {
      store.setState({ receivers: loadReceivers(store.getState().receivers) });
    },
  };
  return api;
}

/** The page's own list, on window.localStorage and window.sessionStorage. */
export const savedReceivers = createSavedReceivers();

if (typeof window !== 'undefined') {
  window.addEventListener('storage', (event) => {
    if (event.key === RECEIVERS_KEY || event.key === null) savedReceivers.reload();
  });
}

export const recordUse = (url: string, headers: HeaderMap) => savedReceivers.recordUse(url, headers);
export const rename = (url: string, name: string) => savedReceivers.rename(url, name);
export const forget = (url: string) => savedReceivers.forget(url);
export const headersFor = (url: string) => savedReceivers.headersFor(url);
export const setRemember = (url: string, remember: boolean, headers: HeaderMap) =>
  savedReceivers.setRemember(url, remember, headers);
export const setRelay = (url: string, on: boolean) => savedReceivers.setRelay(url, on);
export const relayChosen = (url: string) => savedReceivers.relayChosen(url);

/** The recent receivers, most recent first; `api` is for tests and previews. */
export function useSavedReceivers(api: SavedReceiversApi = savedReceivers): SavedReceiver[] {
  return useStore(api.store, (state) => state.receivers);
}
