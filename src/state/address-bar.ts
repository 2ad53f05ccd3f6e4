import { redactUrl } from '../mcp';

/**
 * The page's address is its state: `?server=` names the receiver on screen (left out for the demo receiver,
 * which `/` opens), `?task=` the task open, `?trace=` a recording replayed from this origin. A reload or a
 * shared link opens exactly that. These helpers read and write the receiver's part; app/sync-address.ts keeps
 * the address in step with the page.
 */

/** Where the dashboard connects when no ?server= is given: the demo receiver `npm start` mounts beside it. */
export const demoReceiverUrl = (origin = window.location.origin) => new URL('/demo/mcp', origin).toString();

/** Full receiver URLs by the redacted form the address shows, for this tab only (sessionStorage). */
const SECRET_URLS_KEY = 'taskscope:address-receivers';
const MAX_SECRET_URLS = 20;

function secretUrls(): Record<string, string> {
  try {
    const stored: unknown = JSON.parse(sessionStorage.getItem(SECRET_URLS_KEY) ?? '{}');
    return stored && typeof stored === 'object' ? (stored as Record<string, string>) : {};
  } catch {
    return {};
  }
}

function keepSecretUrl(shown: string, full: string): void {
  try {
    const kept = Object.entries({ ...secretUrls(), [shown]: full }).slice(-MAX_SECRET_URLS);
    sessionStorage.setItem(SECRET_URLS_KEY, JSON.stringify(Object.fromEntries(kept)));
  } catch {
    // Storage refused: a reload of this address asks the redacted URL, which the receiver will refuse.
  }
}

/**
 * How the address names a receiver: a path alone on this origin, the whole URL elsewhere, undefined for the
 * demo receiver. A password or a secret-looking parameter is never put in the address (it would go into the
 * browser's history and into links a person shares); this tab keeps the whole URL behind the redacted one.
 */
export function receiverParam(url: string, origin = window.location.origin): string | undefined {
  if (url === '' || url === demoReceiverUrl(origin)) return undefined;
  const shown = redactUrl(url);
  if (shown !== url) keepSecretUrl(shown, url);
  try {
    const parsed = new URL(shown);
    return parsed.origin === origin ? `${parsed.pathname}${parsed.search}${parsed.hash}` : shown;
  } catch {
    // Not a URL (a typo the page said it could not use): kept as typed, so a reload says the same.
    return shown;
  }
}

/** The receiver an address names (the demo receiver when it names none), with this tab's secrets put back. */
export function receiverFromParam(param: string | null, origin = window.location.origin): string {
  if (param === null || param.trim() === '') return demoReceiverUrl(origin);
  let absolute = param;
  try {
    if (param.startsWith('/')) absolute = new URL(param, origin).toString();
  } catch {
    absolute = param;
  }
  return secretUrls()[absolute] ?? param;
}
