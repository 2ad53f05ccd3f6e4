import type { RememberedSignIn } from '../mcp';

/** Receivers whose sign-in is remembered across reloads: the key holds those ticked, with the sign-in once there is one. */
const KEY = 'taskscope.rememberedSignIns';
const MAX_RECEIVERS = 20;

export const REMEMBER_SIGN_IN_WARNING =
  "The tokens are stored unencrypted in this browser's storage for this site, readable by anyone with access to this browser profile.";

type Stored = Record<string, RememberedSignIn | null>;

function storage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}

function read(): Stored {
  try {
    const parsed = JSON.parse(storage()?.getItem(KEY) ?? '{}') as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Stored) : {};
  } catch {
    return {};
  }
}

function write(value: Stored): void {
  try {
    const entries = Object.entries(value).slice(-MAX_RECEIVERS);
    if (entries.length === 0) storage()?.removeItem(KEY);
    else storage()?.setItem(KEY, JSON.stringify(Object.fromEntries(entries)));
  } catch {
    // Quota or a blocked storage: the sign-in stays in memory for this tab, as without the box ticked.
  }
}

export const isSignInRemembered = (url: string): boolean => url in read();

export function rememberedSignIn(url: string): RememberedSignIn | undefined {
  return read()[url] ?? undefined;
}

export function setSignInRemembered(url: string, on: boolean): void {
  const stored = read();
  if (on) write({ ...stored, [url]: stored[url] ?? null });
  else write(Object.fromEntries(Object.entries(stored).filter(([key]) => key !== url)));
}

/** What the engine sent for a ticked receiver: the sign-in to keep, or null once it is gone (signed out, refused). */
export function storeRememberedSignIn(url: string, signIn: RememberedSignIn | null): void {
  const stored = read();
  if (!(url in stored)) return;
  write({ ...stored, [url]: signIn });
}
