/** Names that mean this machine: a receiver there is reached over plain http. */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;
/** host, host:port or host/path typed without a scheme (a path of our own server starts with "/"). */
const BARE_HOST = /^(\[[0-9a-f:]+\]|[a-z0-9-]+(\.[a-z0-9-]+)*)(:\d{1,5})?(\/|\?|#|$)/i;

/**
 * The receiver URL a person meant. A URL without a scheme gets http:// for loopback names and https://
 * otherwise (so "127.0.0.1:3001/mcp" is not read as a path on Taskscope's own server); a path alone stays on
 * the page's origin. Only http(s) URLs are accepted: the address is typed and pasted from anywhere.
 */
export function normaliseReceiverUrl(raw: string, pageOrigin: string): URL | null {
  const typed = raw.trim();
  if (typed === '') return null;
  let text = typed;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(typed) && !typed.startsWith('/')) {
    const host = BARE_HOST.exec(typed)?.[1];
    if (host) text = `${LOOPBACK.test(host) ? 'http' : 'https'}://${typed}`;
  }
  try {
    const url = new URL(text, pageOrigin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}
