import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CLAIM_CHANNEL,
  SESSION_KEY,
  SessionClaims,
  forgetSession,
  parseSessionMap,
  rememberSession,
  storedSession,
  type ClaimChannel,
  type ClaimLocks,
} from './session-claim';
import { MemoryStorage } from '../../test/helpers/memory-storage';

const A = 'http://127.0.0.1:3001/mcp';
const B = 'https://example.com/mcp';

describe('stored sessions', () => {
  it('remembers, reads back and forgets a session per URL', () => {
    const storage = new MemoryStorage();
    rememberSession(
      { url: A, sessionId: 'abc-1', protocolVersion: '2025-11-25', server: { name: 'e' }, savedAt: 1 },
      storage,
    );
    rememberSession({ url: B, sessionId: 'def-2', savedAt: 2 }, storage);
    expect(storedSession(A, storage)).toEqual({
      url: A,
      sessionId: 'abc-1',
      protocolVersion: '2025-11-25',
      server: { name: 'e' },
      savedAt: 1,
    });
    forgetSession(A, storage);
    expect(storedSession(A, storage)).toBeUndefined();
    expect(storedSession(B, storage)?.sessionId).toBe('def-2');
    forgetSession(B, storage);
    expect(storage.getItem(SESSION_KEY)).toBeNull();
  });

  it('reads junk as nothing and keeps only well-formed entries', () => {
    for (const raw of ['{oops', '[]', '"s"', 'null', JSON.stringify({ [A]: 'x' })]) {
      const storage = new MemoryStorage();
      storage.setItem(SESSION_KEY, raw);
      expect(storedSession(A, storage)).toBeUndefined();
    }
    const map = parseSessionMap({
      [A]: {
        url: A,
        sessionId: 'ok',
        savedAt: 1,
        protocolVersion: 'v'.repeat(100),
        server: 'x'.repeat(20_000),
      },
      [B]: { url: 'https://elsewhere/mcp', sessionId: 'filed-under-another-url', savedAt: 1 },
      'https://c/': { url: 'https://c/', sessionId: 'has space', savedAt: 1 },
      'https://d/': { url: 'https://d/', sessionId: 'x'.repeat(5000), savedAt: 1 },
      'https://e/': { url: 'https://e/', sessionId: 'ok', savedAt: 'yesterday' },
      'https://f/': { url: 'https://f/', sessionId: 'new\nline', savedAt: 1 },
    });
    expect([...map.keys()]).toEqual([A]);
    expect(map.get(A)).toEqual({ url: A, sessionId: 'ok', savedAt: 1 });
  });

  it('does not store an invalid session, and keeps the 20 newest', () => {
    const storage = new MemoryStorage();
    rememberSession({ url: A, sessionId: '', savedAt: 1 }, storage);
    expect(storage.getItem(SESSION_KEY)).toBeNull();
    for (let i = 0; i < 25; i++)
      rememberSession({ url: `https://r${i}/`, sessionId: `s${i}`, savedAt: i }, storage);
    const kept = Object.keys(JSON.parse(storage.getItem(SESSION_KEY)!));
    expect(kept).toHaveLength(20);
    expect(kept).not.toContain('https://r4/');
    expect(kept).toContain('https://r24/');
  });

  it('never throws when storage does', () => {
    const blocked = () => {
      throw new DOMException('blocked', 'SecurityError');
    };
    expect(() => rememberSession({ url: A, sessionId: 's', savedAt: 1 }, blocked)).not.toThrow();
    expect(storedSession(A, blocked)).toBeUndefined();
    expect(() => forgetSession(A, blocked)).not.toThrow();
  });
});

describe('SessionClaims over a BroadcastChannel', () => {
  const open: SessionClaims[] = [];
  let channelName = '';
  let counter = 0;
  // A channel per test, so a late message of one test cannot reach the next. The claims' timers run on fake
  // time; the channel's messages are real, and a test waits for them (heard) before it lets time pass.
  beforeEach(() => {
    channelName = `taskscope-sessions-test-${++counter}`;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => {
    for (const claims of open.splice(0)) claims.close();
    vi.useRealTimers();
  });
  /** A tab's claims, and how many messages its channel has delivered to it. */
  const tab = (timeoutMs = 60) => {
    let heard = 0;
    const claims = new SessionClaims({
      timeoutMs,
      channel: () => {
        const channel = new BroadcastChannel(channelName);
        // Added before the claims' own listener: by the next turn, the claims have handled the message too.
        channel.addEventListener('message', () => heard++);
        return channel;
      },
    });
    open.push(claims);
    return Object.assign(claims, { heard: () => heard });
  };
  /** Lets real events (channel messages) through, a turn at a time, until `condition` holds. */
  async function until(condition: () => boolean) {
    for (let turn = 0; !condition(); turn++) {
      if (turn > 10_000) throw new Error('the channel never delivered');
      await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  /** Whether a promise has settled yet, without waiting for it. */
  const settled = (promise: Promise<unknown>) => {
    let done = false;
    void promise.then(() => (done = true));
    return () => done;
  };
  /** A claim turned away by another tab's answer: it settles with no time passing. */
  async function refused(claiming: SessionClaims, url: string, id: string) {
    const claim = claiming.claim(url, id);
    await until(settled(claim));
    return claim;
  }
  /** A claim nobody objects to: once every other tab has heard the question, its wait runs out. */
  async function unopposed(
    claiming: SessionClaims,
    others: Array<ReturnType<typeof tab>>,
    url: string,
    id: string,
  ) {
    const heard = others.map((o) => o.heard());
    const claim = claiming.claim(url, id);
    await until(() => others.every((o, i) => o.heard() > heard[i]!));
    await vi.advanceTimersByTimeAsync(150);
    return claim;
  }

  it('a claim nobody else holds succeeds', async () => {
    const first = tab();
    const second = tab();
    expect(await unopposed(first, [second], A, 's1')).toBe(true);
    expect(first.holds(A)).toBe('s1');
  });

  it('a second tab claiming a session the first holds gets false, and true after release', async () => {
    const first = tab();
    const second = tab();
    expect(await unopposed(first, [second], A, 's1')).toBe(true);
    // Turned away by the holder's answer: no time passes.
    expect(await refused(second, A, 's1')).toBe(false);
    expect(second.holds(A)).toBeUndefined();
    first.release(A);
    expect(await unopposed(second, [first], A, 's1')).toBe(true);
    // Now the second holds it, and the first is turned away.
    expect(await refused(first, A, 's1')).toBe(false);
  });

  it('a session held with hold() is defended like a claimed one', async () => {
    const first = tab();
    const second = tab();
    first.hold(A, 'opened-here');
    expect(await refused(second, A, 'opened-here')).toBe(false);
  });

  it('other URLs and other sessions do not interfere', async () => {
    const first = tab();
    const second = tab();
    first.hold(A, 's1');
    expect(await unopposed(second, [first], B, 's1')).toBe(true);
    expect(await unopposed(second, [first], A, 's2')).toBe(true);
    expect(await unopposed(first, [second], B, 's9')).toBe(true);
  });

  it('a tab does not answer its own question', async () => {
    const only = tab();
    only.hold(A, 's1');
    expect(await only.claim(A, 's1')).toBe(true);
    // Even over a channel that echoes every message back to its sender.
    const listeners: ((event: MessageEvent) => void)[] = [];
    const echo: ClaimChannel = {
      postMessage: (data) => listeners.forEach((l) => l(new MessageEvent('message', { data }))),
      addEventListener: (_type, listener) => listeners.push(listener),
      close: () => {},
    };
    const echoing = new SessionClaims({ timeoutMs: 20, channel: () => echo });
    echoing.hold(A, 's1');
    // The echo is delivered at once: when the wait runs out, it has been heard and let pass.
    const claim = echoing.claim(A, 's2');
    await vi.advanceTimersByTimeAsync(20);
    expect(await claim).toBe(true);
    echoing.release(A);
    const again = echoing.claim(A, 's1');
    await vi.advanceTimersByTimeAsync(20);
    expect(await again).toBe(true);
    echoing.close();
  });

  it('two tabs claiming one session at the same moment: exactly one wins', async () => {
    // Repeated, so that both orders of the random nonces come up.
    for (let i = 0; i < 8; i++) {
      const [first, second] = [tab(), tab()];
      const claims = [first.claim(A, `s${i}`), second.claim(A, `s${i}`)];
      const done = claims.map(settled);
      // Each hears the other's question; the higher nonce gives way at once, before any wait runs out.
      await until(() => first.heard() > 0 && second.heard() > 0 && done.some((d) => d()));
      expect(done.filter((d) => d())).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(60);
      const results = await Promise.all(claims);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect([first.holds(A), second.holds(A)].filter(Boolean)).toEqual([`s${i}`]);
    }
  });

  it('a claim made while another is still waiting loses to it, whichever nonce is lower', async () => {
    for (let i = 0; i < 6; i++) {
      const first = tab(80);
      const second = tab(80);
      const early = first.claim(A, `s${i}`);
      // The second tab has heard the first one's question before it asks.
      await until(() => second.heard() > 0);
      await vi.advanceTimersByTimeAsync(30);
      const late = second.claim(A, `s${i}`);
      // The first one's wait runs out: it holds the session. The second, which waited for that, asks now
      // (its own wait far from over) and is turned away by the holder's answer.
      await vi.advanceTimersByTimeAsync(52);
      expect(await early).toBe(true);
      await until(settled(late));
      expect(await late).toBe(false);
      first.close();
      second.close();
    }
  });

  it('with no BroadcastChannel every claim succeeds', async () => {
    const alone = new SessionClaims({ channel: () => null });
    const other = new SessionClaims({ channel: () => null });
    other.hold(A, 's1');
    expect(await alone.claim(A, 's1')).toBe(true);
    alone.close();
    other.close();
  });

  it('uses the taskscope-sessions channel by default', async () => {
    let name = '';
    const claims = new SessionClaims({
      channel: (n) => {
        name = n;
        return null;
      },
    });
    expect(name).toBe(CLAIM_CHANNEL);
    claims.close();
    const real = new SessionClaims();
    const claim = real.claim(`urn:test:${Math.random()}`, 's');
    await vi.advanceTimersByTimeAsync(150);
    expect(await claim).toBe(true);
    real.close();
  });
});

/**
 * Web Locks as the browser keeps them, for Node (which has none): a named lock has one holder at a time, a
 * request waits for it until its signal aborts. The browser's own locks are met in the e2e (live.spec).
 */
class BrowserLocks implements ClaimLocks {
  private readonly holders = new Set<string>();
  private readonly waiting = new Map<string, Array<() => void>>();

  async request(name: string, options: { signal: AbortSignal }, callback: () => Promise<void>) {
    while (this.holders.has(name)) {
      await new Promise<void>((resolve, reject) => {
        const queue = this.waiting.get(name) ?? [];
        queue.push(resolve);
        this.waiting.set(name, queue);
        options.signal.addEventListener('abort', () => reject(options.signal.reason as Error));
      });
    }
    this.holders.add(name);
    try {
      await callback();
    } finally {
      this.holders.delete(name);
      for (const wake of this.waiting.get(name)?.splice(0) ?? []) wake();
    }
  }
}

describe('SessionClaims over Web Locks', () => {
  const locks = new BrowserLocks();
  const open: SessionClaims[] = [];
  afterEach(() => {
    for (const claims of open.splice(0)) claims.close();
  });
  /** A tab: no channel, so only the locks can turn a claim away. */
  const tab = () => {
    const claims = new SessionClaims({ locks, channel: () => null, lockWaitMs: 50 });
    open.push(claims);
    return claims;
  };

  it('a tab holding a session keeps it from a duplicated tab until it lets go, whatever it is busy with', async () => {
    const first = tab();
    const second = tab();
    expect(await first.claim(A, 's1')).toBe(true);
    // The holder answers nothing itself: the lock turns the second tab away when its wait runs out.
    expect(await second.claim(A, 's1')).toBe(false);
    expect(second.holds(A)).toBeUndefined();
    expect(await second.claim(A, 's2')).toBe(true);
    first.release(A);
    expect(await second.claim(A, 's1')).toBe(true);
    expect(second.holds(A)).toBe('s1');
  });

  it('a reloaded page gets the session its predecessor lets go of while it waits', async () => {
    const before = tab();
    before.hold(A, 'opened-here');
    // hold() takes its lock a moment later: held once another tab is turned away.
    await vi.waitFor(async () => expect(await tab().claim(A, 'opened-here')).toBe(false));
    const after = tab();
    const claim = after.claim(A, 'opened-here');
    before.close();
    expect(await claim).toBe(true);
  });

  it('a session released before its lock came is not held', async () => {
    const first = tab();
    first.hold(A, 's1');
    first.release(A);
    expect(await tab().claim(A, 's1')).toBe(true);
  });
});
