export interface StoredSession {
  url: string;
  sessionId: string;
  protocolVersion?: string;
  server?: unknown;
  savedAt: number;
}

export const SESSION_KEY = 'taskscope.session';
export const CLAIM_CHANNEL = 'taskscope-sessions';
const MAX_URL = 2048;
const MAX_SESSION_ID = 1024;
const MAX_PROTOCOL_VERSION = 64;
/** Server info is only shown again after a reload; one too big to keep is dropped, not the session. */
const MAX_SERVER_JSON = 16_384;
const MAX_SESSIONS = 20;
const MAX_STORED_CHARS = 1_000_000;
/** The transport spec allows only visible ASCII in a session id; anything else was not issued to us. */
const SESSION_ID = /^[\x21-\x7e]+$/;

/** A Storage, or a getter for one (reading window.sessionStorage throws where storage is blocked). */
export type StorageSource = Storage | (() => Storage | null | undefined);

const defaultSession: StorageSource = () => (typeof window === 'undefined' ? null : window.sessionStorage);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const validUrl = (value: unknown): value is string =>
  typeof value === 'string' && value !== '' && value.length <= MAX_URL;

function serverSize(server: unknown): number {
  try {
    return JSON.stringify(server)?.length ?? 0;
  } catch {
    return Infinity;
  }
}

/** One stored session, cleaned; undefined when it is not one. */
export function parseStoredSession(value: unknown): StoredSession | undefined {
  if (!isRecord(value) || !validUrl(value.url)) return undefined;
  const { sessionId, savedAt, protocolVersion, server } = value;
  if (typeof sessionId !== 'string' || sessionId.length > MAX_SESSION_ID || !SESSION_ID.test(sessionId)) {
    return undefined;
  }
  if (typeof savedAt !== 'number' || !Number.isFinite(savedAt)) return undefined;
  const session: StoredSession = { url: value.url, sessionId, savedAt };
  if (typeof protocolVersion === 'string' && protocolVersion.length <= MAX_PROTOCOL_VERSION) {
    session.protocolVersion = protocolVersion;
  }
  if (server !== undefined && serverSize(server) <= MAX_SERVER_JSON) session.server = server;
  return session;
}

/** The stored map, cleaned: junk entries dropped, an entry filed under another URL than its own dropped. */
export function parseSessionMap(value: unknown): Map<string, StoredSession> {
  const map = new Map<string, StoredSession>();
  if (!isRecord(value)) return map;
  for (const [url, entry] of Object.entries(value)) {
    const session = parseStoredSession(entry);
    if (session && session.url === url) map.set(url, session);
  }
  return newest(map);
}

function newest(map: Map<string, StoredSession>): Map<string, StoredSession> {
  if (map.size <= MAX_SESSIONS) return map;
  const kept = [...map.values()].sort((a, b) => b.savedAt - a.savedAt).slice(0, MAX_SESSIONS);
  return new Map(kept.map((s) => [s.url, s]));
}

function storageOf(source: StorageSource): Storage | null {
  // Storage itself is never callable, so a function here is the getter.
  return typeof source === 'function' ? (source() ?? null) : source;
}

function readSessions(source: StorageSource): Map<string, StoredSession> {
  try {
    const raw = storageOf(source)?.getItem(SESSION_KEY);
    if (!raw || raw.length > MAX_STORED_CHARS) return new Map();
    return parseSessionMap(JSON.parse(raw));
  } catch {
    return new Map();
  }
}

function writeSessions(source: StorageSource, map: Map<string, StoredSession>) {
  try {
    const storage = storageOf(source);
    if (!storage) return;
    if (map.size === 0) storage.removeItem(SESSION_KEY);
    else storage.setItem(SESSION_KEY, JSON.stringify(Object.fromEntries(map)));
  } catch {
    // A blocked or full storage only costs resuming the session after a reload.
  }
}

/** Keeps the session for this tab, so a reload resumes it; an invalid one is not stored. */
export function rememberSession(session: StoredSession, storage: StorageSource = defaultSession): void {
  const clean = parseStoredSession(session);
  if (!clean) return;
  const map = readSessions(storage);
  map.delete(clean.url);
  map.set(clean.url, clean);
  writeSessions(storage, newest(map));
}

export function forgetSession(url: string, storage: StorageSource = defaultSession): void {
  const map = readSessions(storage);
  if (map.delete(url)) writeSessions(storage, map);
}

export function storedSession(
  url: string,
  storage: StorageSource = defaultSession,
): StoredSession | undefined {
  return readSessions(storage).get(url);
}

type ClaimMessage =
  { type: 'who-has'; url: string; sessionId: string; nonce: string } | { type: 'mine'; nonce: string };

/** The part of BroadcastChannel that claims use. */
export interface ClaimChannel {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  close(): void;
}

/** The part of the Web Locks API that claims use. */
export interface ClaimLocks {
  request(name: string, options: { signal: AbortSignal }, callback: () => Promise<void>): Promise<unknown>;
}

export interface SessionClaimsOptions {
  /** Returns the channel to the other tabs, or null when there is none (then every claim succeeds). */
  channel?: (name: string) => ClaimChannel | null;
  timeoutMs?: number;
  /**
   * The browser's Web Locks (navigator.locks, in secure contexts such as localhost), or null to claim over the
   * channel alone. With locks, a session is held as a lock for as long as this tab holds it.
   */
  locks?: ClaimLocks | null;
  /** With locks: how long a claim waits for the lock (a reloaded page's predecessor lets go in milliseconds). */
  lockWaitMs?: number;
}

function defaultLocks(): ClaimLocks | null {
  return typeof navigator !== 'undefined' && navigator.locks ? navigator.locks : null;
}

const lockName = (url: string, sessionId: string) => `taskscope-session ${url} ${sessionId}`;

function defaultChannel(name: string): ClaimChannel | null {
  if (typeof BroadcastChannel !== 'function') return null;
  try {
    return new BroadcastChannel(name);
  } catch {
    // Some sandboxed or opaque origins refuse a channel; such a page cannot share a session anyway.
    return null;
  }
}

function newNonce(): string {
  // crypto.randomUUID needs a secure context; a dashboard opened over plain http on a LAN is not one.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function parseMessage(data: unknown): ClaimMessage | undefined {
  if (!isRecord(data) || typeof data.nonce !== 'string' || data.nonce.length > 64) return undefined;
  if (data.type === 'mine') return { type: 'mine', nonce: data.nonce };
  if (data.type === 'who-has' && validUrl(data.url) && typeof data.sessionId === 'string') {
    return { type: 'who-has', url: data.url, sessionId: data.sessionId, nonce: data.nonce };
  }
  return undefined;
}

const claimKey = (url: string, sessionId: string) => `${url}\n${sessionId}`;

interface PendingClaim {
  url: string;
  sessionId: string;
  settle: (mine: boolean) => void;
}

/**
 * Which tab owns which receiver session. sessionStorage is per tab, but a duplicated tab starts with a copy
 * of it, so two tabs could resume one Mcp-Session-Id and answer each other's requests; a tab must claim a
 * stored session before resuming it. One instance per page.
 *
 * Where the browser has Web Locks, a held session is a lock: the browser answers a claim whatever the holding
 * tab is doing, where a claim over the channel needs the holder's main thread free to answer within the
 * claim's wait. The channel stays for pages without locks (plain http off localhost).
 */
export class SessionClaims {
  private readonly channel: ClaimChannel | null;
  private readonly locks: ClaimLocks | null;
  private readonly lockWaitMs: number;
  /** url → lets go of the lock on the session held there. */
  private readonly lockReleases = new Map<string, () => void>();
  private readonly timeoutMs: number;
  /** url → the session this tab holds there. */
  private readonly held = new Map<string, string>();
  /** nonce → an open claim of this tab. */
  private readonly pending = new Map<string, PendingClaim>();
  /** url + session → until when another tab's claim for it may still be waiting for answers. */
  private readonly othersClaiming = new Map<string, number>();
  private closed = false;

  constructor(options: SessionClaimsOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 150;
    this.locks = options.locks === undefined ? defaultLocks() : options.locks;
    this.lockWaitMs = options.lockWaitMs ?? 1500;
    this.channel = (options.channel ?? defaultChannel)(CLAIM_CHANNEL);
    this.channel?.addEventListener('message', (event) => this.receive(event.data));
  }

  /** True when no other tab holds this session, so this tab may resume it (and now holds it). */
  claim(url: string, sessionId: string): Promise<boolean> {
    if (this.held.get(url) === sessionId) return Promise.resolve(true);
    if (this.locks && !this.closed) return this.lock(this.locks, url, sessionId);
    if (!this.channel || this.closed) {
      this.held.set(url, sessionId);
      return Promise.resolve(true);
    }
    // That tab asked first and takes the session when no one objects; asking now would race it, so ask once
    // its claim is settled, when it answers for the session like any holder.
    const othersUntil = this.othersClaiming.get(claimKey(url, sessionId)) ?? 0;
    const wait = othersUntil - Date.now();
    if (wait > 0) {
      return new Promise<void>((resolve) => setTimeout(resolve, wait + 1)).then(() =>
        this.claim(url, sessionId),
      );
    }
    return this.ask(this.channel, url, sessionId);
  }

  private ask(channel: ClaimChannel, url: string, sessionId: string): Promise<boolean> {
    const nonce = newNonce();
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => settle(true), this.timeoutMs);
      const settle = (mine: boolean) => {
        if (!this.pending.delete(nonce)) return;
        clearTimeout(timer);
        if (mine) this.held.set(url, sessionId);
        resolve(mine);
      };
      this.pending.set(nonce, { url, sessionId, settle });
      try {
        channel.postMessage({ type: 'who-has', url, sessionId, nonce } satisfies ClaimMessage);
      } catch {
        // Nobody can be asked, so nobody can object: the same as having no channel.
        settle(true);
      }
    });
  }

  /**
   * Takes the session's lock, waiting up to `lockWaitMs` for another holder to let go; true once held. The lock
   * is kept (its callback's promise pending) until `release` or the page goes.
   */
  private lock(locks: ClaimLocks, url: string, sessionId: string, holding = false): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      locks
        .request(lockName(url, sessionId), { signal: AbortSignal.timeout(this.lockWaitMs) }, () => {
          // Closed, or (for a held session) released or replaced while the lock was on its way.
          if (this.closed || (holding && this.held.get(url) !== sessionId)) {
            resolve(false);
            return Promise.resolve();
          }
          this.releaseLock(url);
          this.held.set(url, sessionId);
          resolve(true);
          return new Promise<void>((letGo) => this.lockReleases.set(url, letGo));
        })
        .catch(() => resolve(false));
    });
  }

  private releaseLock(url: string) {
    this.lockReleases.get(url)?.();
    this.lockReleases.delete(url);
  }

  /** Holds a session this tab opened itself, so other tabs that find it in their copied storage keep off. */
  hold(url: string, sessionId: string): void {
    this.held.set(url, sessionId);
    // A session just opened is nobody else's: its lock is free at once.
    if (this.locks && !this.closed) void this.lock(this.locks, url, sessionId, true);
  }

  release(url: string): void {
    this.held.delete(url);
    this.releaseLock(url);
  }

  holds(url: string): string | undefined {
    return this.held.get(url);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    // No answer can come any more; what was asked so far went unanswered.
    for (const claim of [...this.pending.values()]) claim.settle(true);
    for (const url of [...this.lockReleases.keys()]) this.releaseLock(url);
    this.channel?.close();
  }

  private receive(data: unknown) {
    const message = parseMessage(data);
    if (!message || this.closed) return;
    if (message.type === 'mine') {
      this.pending.get(message.nonce)?.settle(false);
      return;
    }
    // A channel that echoes our own question back must not make us answer, or object to, ourselves.
    if (this.pending.has(message.nonce)) return;
    if (this.held.get(message.url) === message.sessionId) {
      this.answer(message.nonce);
      return;
    }
    this.noteOtherClaim(claimKey(message.url, message.sessionId));
    // Two tabs claiming one session at once (both asked before either heard the other): both staying silent
    // would let both resume it. The lower nonce answers and wins; the higher gives way and opens a new session.
    for (const [nonce, claim] of this.pending) {
      if (claim.url !== message.url || claim.sessionId !== message.sessionId) continue;
      if (nonce < message.nonce) this.answer(message.nonce);
      else claim.settle(false);
    }
  }

  private noteOtherClaim(key: string) {
    const now = Date.now();
    for (const [k, until] of this.othersClaiming) if (until <= now) this.othersClaiming.delete(k);
    this.othersClaiming.set(key, now + this.timeoutMs);
  }

  private answer(nonce: string) {
    try {
      this.channel?.postMessage({ type: 'mine', nonce } satisfies ClaimMessage);
    } catch {
      // The channel is gone with the page.
    }
  }
}
