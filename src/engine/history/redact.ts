/**
 * What the history keeps must never hold a credential: a browser profile's IndexedDB outlives the tab and can
 * be read by anyone with the disk. Header values that carry secrets are replaced before anything is stored.
 */

import type { TrafficEvent } from '../../mcp';
import { REDACTED, isSecretHeader, redactUrl } from '../../mcp/redact-headers';

export { REDACTED, isSecretHeader, redactHeaders } from '../../mcp/redact-headers';

/** FNV-1a, 32 bits: enough to keep apart URLs that differ only in a blanked part, too little to recover it. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * The key a receiver's history is kept under. A URL with a password or secret-looking query parameters
 * (`?api_key=`, `?token=`…) is kept as its blanked form plus a short hash of the whole, so no credential is
 * written to disk, yet two receivers that differ only there (`?region_code=eu` and `=us` match the rule too)
 * keep two histories. A rotated key therefore starts a new one. Other URLs are their own key.
 */
export function historyKey(url: string): string {
  const blanked = redactUrl(url);
  // A space cannot occur in a URL, so no plain URL's key can meet a blanked one.
  return blanked === url ? url : `${blanked} ${shortHash(url)}`;
}

/** requestHeaders, responseHeaders…: any property that names headers is treated as holding them. */
const HEADERS_PROPERTY = /headers$/i;

type Container = Record<string, unknown> | unknown[];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isContainer(value: unknown): value is Container {
  return Array.isArray(value) || isPlainObject(value);
}

/** A headers value in any shape it travels in: a record, [name, value] pairs or a Map. Unchanged when clean. */
function redactHeaderLike(value: unknown): unknown {
  if (isPlainObject(value)) {
    return Object.keys(value).some(isSecretHeader)
      ? Object.fromEntries(
          Object.entries(value).map(([name, v]) => [name, isSecretHeader(name) ? REDACTED : v]),
        )
      : value;
  }
  const isSecretPair = (pair: unknown) =>
    Array.isArray(pair) && typeof pair[0] === 'string' && isSecretHeader(pair[0]);
  if (Array.isArray(value)) {
    return value.some(isSecretPair)
      ? value.map((pair: unknown) => (isSecretPair(pair) ? [(pair as unknown[])[0], REDACTED] : pair))
      : value;
  }
  if (value instanceof Map) {
    const keys = [...value.keys()];
    return keys.some((k) => typeof k === 'string' && isSecretHeader(k))
      ? new Map([...value].map(([k, v]) => [k, typeof k === 'string' && isSecretHeader(k) ? REDACTED : v]))
      : value;
  }
  return value;
}

/** Assignment would turn a `__proto__` key into a prototype change. */
function setOwn(target: Container, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Where a node sits: the same object may hang under several parents (and, after structured clone, in a cycle). */
interface Link {
  parent: Frame;
  key: string | number;
}

interface Frame {
  node: Container;
  parents: Link[];
  copy?: Container;
}

function shallowCopy(node: Container): Container {
  return Array.isArray(node) ? node.slice() : { ...node };
}

/** Puts `child`'s copy under `link`'s parent, copying that parent (and its own parents) on first need. */
function attach(link: Link, child: Frame): void {
  const work: Array<[Link, Frame]> = [[link, child]];
  for (let item = work.pop(); item; item = work.pop()) {
    const [{ parent, key }, frame] = item;
    if (!parent.copy) {
      parent.copy = shallowCopy(parent.node);
      for (const up of parent.parents) work.push([up, parent]);
    }
    setOwn(parent.copy, key, frame.copy);
  }
}

function ensureCopy(frame: Frame): Container {
  if (frame.copy) return frame.copy;
  const copy = shallowCopy(frame.node);
  frame.copy = copy;
  for (const link of frame.parents) attach(link, frame);
  return copy;
}

/**
 * The value with every headers-like property's secret values redacted. Untouched parts are shared, not copied
 * (a 200,000-node result without headers costs one walk and no copy), and the walk keeps its own stack so a
 * value nested 10,000 deep cannot overflow the call stack.
 */
export function redactForStorage<T>(value: T): T {
  if (!isContainer(value)) return value;
  const root: Frame = { node: value, parents: [] };
  const frames = new Map<Container, Frame>([[value, root]]);
  const stack: Frame[] = [root];
  const visit = (frame: Frame, key: string | number, child: unknown) => {
    if (typeof key === 'string' && HEADERS_PROPERTY.test(key)) {
      const redacted = redactHeaderLike(child);
      if (redacted !== child) setOwn(ensureCopy(frame), key, redacted);
      return;
    }
    if (!isContainer(child)) return;
    const seen = frames.get(child);
    if (seen) {
      const link = { parent: frame, key };
      seen.parents.push(link);
      if (seen.copy) attach(link, seen);
      return;
    }
    const next: Frame = { node: child, parents: [{ parent: frame, key }] };
    frames.set(child, next);
    stack.push(next);
  };
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const { node } = frame;
    if (Array.isArray(node)) for (let i = 0; i < node.length; i++) visit(frame, i, node[i]);
    else for (const key of Object.keys(node)) visit(frame, key, node[key]);
  }
  return (root.copy ?? value) as T;
}

/**
 * A traffic event as it may be kept or handed on: headers-like fields redacted, and the secrets of the URL it
 * went to (the tap records it as the person typed it, `?api_key=` and all). Names what it blanked into `redacted`.
 */
export function redactTrafficEvent(event: TrafficEvent, redacted?: Set<string>): TrafficEvent {
  const out = redactForStorage(event);
  if (!out.http) return out;
  const url = redactUrl(out.http.url, redacted);
  return url === out.http.url ? out : { ...out, http: { ...out.http, url } };
}
