import net from 'node:net';
import os from 'node:os';

/** The first port from `from` on that nothing listens on, looking at a few; undefined when none is. */
export async function nextFreePort(from: number, host: string, tries = 20): Promise<number | undefined> {
  for (let port = from; port < from + tries && port <= 65535; port++) {
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, host, () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
  return undefined;
}

/**
 * The Host names a page from another machine will use (--allow-remote): the address given, or for a wildcard
 * every address of this machine and its name. Anything else stays refused (DNS rebinding).
 */
export function extraHosts(host: string): string[] {
  if (host !== '0.0.0.0' && host !== '::') return [host.includes(':') ? `[${host}]` : host];
  const addresses = Object.values(os.networkInterfaces())
    .flat()
    .filter((a): a is os.NetworkInterfaceInfo => a !== undefined && (host === '::' || a.family === 'IPv4'))
    .map((a) => (a.family === 'IPv6' ? `[${a.address}]` : a.address));
  return [...new Set([...addresses, os.hostname().toLowerCase()])];
}
