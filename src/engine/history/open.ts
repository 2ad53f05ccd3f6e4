/**
 * Opening IndexedDB can fail, block or never answer (private modes, another tab on an older version): all of
 * it must end in "no history" within a bound time, never in a hang of the engine.
 */

import { DEFAULT_HISTORY_CAPS, type HistoryCaps } from './history-types';
import { HISTORY_DB_VERSION, upgradeHistoryDb } from './schema';

export function globalIndexedDB(): IDBFactory | undefined {
  try {
    return (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  } catch {
    // Some sandboxed contexts throw on the mere access.
    return undefined;
  }
}

/** Caps the caller gives override the defaults only when they are finite, and never below 1. */
export function resolveCaps(given: Partial<HistoryCaps> | undefined): HistoryCaps {
  const caps = { ...DEFAULT_HISTORY_CAPS };
  for (const key of Object.keys(caps) as Array<keyof HistoryCaps>) {
    const value = given?.[key];
    if (value !== undefined && Number.isFinite(value)) caps[key] = Math.max(1, Math.floor(value));
  }
  return caps;
}

/** The raw open, so blocked, failing and never-answering requests all end in null rather than a hang. */
export function openRaw(factory: IDBFactory, name: string, timeoutMs: number): Promise<IDBDatabase | null> {
  return new Promise((resolve) => {
    let settled = false;
    const timer = setTimeout(() => finish(null), timeoutMs);
    const finish = (db: IDBDatabase | null) => {
      if (settled) {
        // Opened after we gave up: nobody will use it, and an open connection would block later upgrades.
        db?.close();
        return;
      }
      settled = true;
      clearTimeout(timer);
      resolve(db);
    };
    let request: IDBOpenDBRequest;
    try {
      request = factory.open(name, HISTORY_DB_VERSION);
    } catch {
      finish(null);
      return;
    }
    request.onupgradeneeded = (event) => {
      try {
        upgradeHistoryDb(request.result, event.oldVersion);
      } catch {
        request.transaction?.abort();
      }
    };
    // Another tab holds an older version open and does not let go: run without history rather than wait.
    request.onblocked = () => finish(null);
    request.onsuccess = () => finish(request.result);
    request.onerror = (event) => {
      event.preventDefault();
      finish(null);
    };
  });
}
