import { describe, expect, it } from 'vitest';
import {
  MAX_RECEIVERS,
  RECEIVERS_KEY,
  REMEMBERED_HEADERS_KEY,
  TAB_HEADERS_KEY,
  createSavedReceivers,
  defaultName,
  parseReceivers,
} from './saved-receivers-store';
import { MemoryStorage } from '../../test/helpers/memory-storage';

class ThrowingStorage extends MemoryStorage {
  override getItem(): string | null {
    throw new DOMException('blocked', 'SecurityError');
  }
  override setItem() {
    throw new DOMException('full', 'QuotaExceededError');
  }
  override removeItem() {
    throw new DOMException('blocked', 'SecurityError');
  }
}

function setup() {
  const local = new MemoryStorage();
  const session = new MemoryStorage();
  let clock = 1_000;
  const api = createSavedReceivers({ local, session, now: () => ++clock });
  const stored = (storage: MemoryStorage, key: string) => JSON.parse(storage.getItem(key) ?? 'null');
  return { local, session, api, stored };
}

const A = 'http://127.0.0.1:3001/mcp';
const B = 'https://example.com/mcp';

describe('saved receivers', () => {
  it('keeps the most recent first and moves a reused receiver to the front, keeping its name', () => {
    const { api, local, stored } = setup();
    api.recordUse(A, {});
    api.recordUse(B, {});
    api.rename(A, 'Local everything');
    expect(api.list().map((r) => r.url)).toEqual([B, A]);
    api.recordUse(A, {});
    expect(api.list().map((r) => r.url)).toEqual([A, B]);
    expect(api.list()[0]).toMatchObject({ name: 'Local everything' });
    expect(api.list()[0]!.lastUsedAt).toBeGreaterThan(api.list()[1]!.lastUsedAt);
    expect(stored(local, RECEIVERS_KEY).map((r: { url: string }) => r.url)).toEqual([A, B]);
  });

  it('names a receiver by host and path, cut to 60 characters', () => {
    expect(defaultName(A)).toBe('127.0.0.1:3001/mcp');
    expect(defaultName('https://example.com/')).toBe('example.com');
    const long = defaultName(`https://example.com/${'x'.repeat(100)}`);
    expect(long).toHaveLength(60);
    expect(long.startsWith('example.com/xxx')).toBe(true);
  });

  it('keeps at most 20 and forgets the headers of those that fall off', () => {
    const { api, local, stored } = setup();
    const first = 'https://first.example/mcp';
    api.recordUse(first, { Authorization: 'Bearer one' });
    api.setRemember(first, true, { Authorization: 'Bearer one' });
    for (let i = 0; i < MAX_RECEIVERS; i++) api.recordUse(`https://r${i}.example/mcp`, {});
    expect(api.list()).toHaveLength(MAX_RECEIVERS);
    expect(api.list().some((r) => r.url === first)).toBe(false);
    expect(api.list()[0]!.url).toBe(`https://r${MAX_RECEIVERS - 1}.example/mcp`);
    expect(stored(local, REMEMBERED_HEADERS_KEY)).toBeNull();
  });

  it('keeps headers for the tab only unless remembered', () => {
    const { api, local, session, stored } = setup();
    api.recordUse(A, { Authorization: 'Bearer tab' });
    expect(stored(session, TAB_HEADERS_KEY)).toEqual({ [A]: { Authorization: 'Bearer tab' } });
    expect(local.getItem(REMEMBERED_HEADERS_KEY)).toBeNull();
    expect(api.headersFor(A)).toEqual({ Authorization: 'Bearer tab' });
  });

  it('moves headers to localStorage when remembered and deletes them from there when unticked', () => {
    const { api, local, session, stored } = setup();
    api.recordUse(A, { Authorization: 'Bearer x' });
    api.setRemember(A, true, { Authorization: 'Bearer x' });
    expect(api.list()[0]).toMatchObject({ rememberHeaders: true });
    expect(stored(local, REMEMBERED_HEADERS_KEY)).toEqual({ [A]: { Authorization: 'Bearer x' } });

    // A new tab (empty sessionStorage) gets them back from localStorage.
    const nextTab = createSavedReceivers({ local, session: new MemoryStorage() });
    expect(nextTab.headersFor(A)).toEqual({ Authorization: 'Bearer x' });

    // A later connect with remember on updates the remembered copy too.
    api.recordUse(A, { Authorization: 'Bearer y' });
    expect(stored(local, REMEMBERED_HEADERS_KEY)).toEqual({ [A]: { Authorization: 'Bearer y' } });

    api.setRemember(A, false, api.headersFor(A));
    expect(local.getItem(REMEMBERED_HEADERS_KEY)).toBeNull();
    expect(api.list()[0]).toMatchObject({ rememberHeaders: false });
    expect(stored(session, TAB_HEADERS_KEY)).toEqual({ [A]: { Authorization: 'Bearer y' } });
    expect(api.headersFor(A)).toEqual({ Authorization: 'Bearer y' });
  });

  it('unticking keeps the remembered headers for the tab even when the tab had none', () => {
    const { local } = setup();
    const first = createSavedReceivers({ local, session: new MemoryStorage() });
    first.recordUse(A, {});
    first.setRemember(A, true, { 'X-Key': 'k' });
    const session = new MemoryStorage();
    const second = createSavedReceivers({ local, session });
    second.setRemember(A, false, {});
    expect(local.getItem(REMEMBERED_HEADERS_KEY)).toBeNull();
    expect(second.headersFor(A)).toEqual({ 'X-Key': 'k' });
    expect(JSON.parse(session.getItem(TAB_HEADERS_KEY)!)).toEqual({ [A]: { 'X-Key': 'k' } });
  });

  it('prefers the tab headers over the remembered ones', () => {
    const { api, session } = setup();
    api.recordUse(A, {});
    api.setRemember(A, true, { Authorization: 'Bearer remembered' });
    session.setItem(TAB_HEADERS_KEY, JSON.stringify({ [A]: { Authorization: 'Bearer tab' } }));
    expect(api.headersFor(A)).toEqual({ Authorization: 'Bearer tab' });
  });

  it('forget removes the entry, its remembered and its tab headers', () => {
    const { api, local, session, stored } = setup();
    api.recordUse(A, { Authorization: 'a' });
    api.setRemember(A, true, { Authorization: 'a' });
    api.setRelay(A, true);
    api.recordUse(B, { Authorization: 'b' });
    api.forget(A);
    expect(api.list().map((r) => r.url)).toEqual([B]);
    expect(api.headersFor(A)).toEqual({});
    expect(api.relayChosen(A)).toBe(false);
    expect(local.getItem(REMEMBERED_HEADERS_KEY)).toBeNull();
    expect(stored(session, TAB_HEADERS_KEY)).toEqual({ [B]: { Authorization: 'b' } });
  });

  it('remembers the relay choice per receiver, only when set', () => {
    const { api } = setup();
    api.recordUse(A, {});
    api.recordUse(B, {});
    expect(api.relayChosen(A)).toBe(false);
    api.setRelay(A, true);
    expect(api.relayChosen(A)).toBe(true);
    expect(api.relayChosen(B)).toBe(false);
    api.recordUse(A, {});
    expect(api.relayChosen(A)).toBe(true);
    api.setRelay(A, false);
    expect(api.relayChosen(A)).toBe(false);
    // Choosing a relay does not reorder the list.
    expect(api.list().map((r) => r.url)).toEqual([A, B]);
  });

  it('reads a corrupt or hostile list as empty or cleaned, never throwing', () => {
    const cases: [string, number][] = [
      ['{not json', 0],
      ['null', 0],
      ['{"url":"x"}', 0],
      ['"a string"', 0],
      [JSON.stringify([null, 1, 'x', { url: 5 }, { url: '' }, { name: 'no url' }]), 0],
    ];
    for (const [raw, length] of cases) {
      const local = new MemoryStorage();
      local.setItem(RECEIVERS_KEY, raw);
      local.setItem(REMEMBERED_HEADERS_KEY, raw);
      const api = createSavedReceivers({ local, session: new MemoryStorage() });
      expect(api.list()).toHaveLength(length);
      expect(api.headersFor('x')).toEqual({});
    }
  });

  it('cleans what it keeps: caps strings, drops bad fields, duplicates and bad headers', () => {
    const hostile = [
      { url: A, name: 'n'.repeat(5000), lastUsedAt: 'soon', relay: 'yes', rememberHeaders: 1, extra: '<b>' },
      { url: A, name: 'duplicate' },
      { url: `https://x/${'y'.repeat(3000)}`, name: 'too long a URL' },
      ...Array.from({ length: 40 }, (_, i) => ({ url: `https://r${i}/`, name: `r${i}`, lastUsedAt: i })),
    ];
    const list = parseReceivers(hostile);
    expect(list).toHaveLength(MAX_RECEIVERS);
    expect(list[0]).toEqual({ url: A, name: 'n'.repeat(2048), lastUsedAt: 0 });
    expect(list.filter((r) => r.url === A)).toHaveLength(1);
    expect(list.every((r) => r.url.length <= 2048)).toBe(true);

    const local = new MemoryStorage();
    local.setItem(
      REMEMBERED_HEADERS_KEY,
      JSON.stringify({
        [A]: { Good: 'yes', 'Bad Name': 'x', Split: 'a\r\nInjected: 1', Number: 5, Long: 'v'.repeat(3000) },
        [B]: ['not', 'a', 'map'],
      }),
    );
    const api = createSavedReceivers({ local, session: new MemoryStorage() });
    expect(api.headersFor(A)).toEqual({ Good: 'yes' });
    expect(api.headersFor(B)).toEqual({});
    // A header called __proto__ stays a plain key and does not reach any prototype.
    local.setItem(REMEMBERED_HEADERS_KEY, `{"${A}":{"__proto__":"x","polluted":"no"}}`);
    const headers = api.headersFor(A);
    expect(Object.keys(headers).sort()).toEqual(['__proto__', 'polluted']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps working in memory when storage throws on every call', () => {
    const api = createSavedReceivers({ local: new ThrowingStorage(), session: new ThrowingStorage() });
    expect(api.list()).toEqual([]);
    expect(() => {
      api.recordUse(A, { Authorization: 'Bearer m' });
      api.setRemember(A, true, { Authorization: 'Bearer m' });
      api.setRelay(A, true);
      api.rename(A, 'mine');
    }).not.toThrow();
    expect(api.list()).toMatchObject([{ url: A, name: 'mine', relay: true, rememberHeaders: true }]);
    expect(api.headersFor(A)).toEqual({ Authorization: 'Bearer m' });
    api.forget(A);
    expect(api.list()).toEqual([]);
  });

  it('tolerates a storage getter that throws, as window.localStorage does when blocked', () => {
    const blocked = () => {
      throw new DOMException('The operation is insecure.', 'SecurityError');
    };
    const api = createSavedReceivers({ local: blocked, session: blocked });
    api.recordUse(A, { 'X-Token': 't' });
    expect(api.list().map((r) => r.url)).toEqual([A]);
    expect(api.headersFor(A)).toEqual({ 'X-Token': 't' });
  });

  it('rename with an empty name falls back to the default name; unknown URLs are left alone', () => {
    const { api } = setup();
    api.recordUse(A, {});
    api.rename(A, '  staging  ');
    expect(api.list()[0]!.name).toBe('staging');
    api.rename(A, '   ');
    expect(api.list()[0]!.name).toBe('127.0.0.1:3001/mcp');
    api.rename(B, 'ghost');
    expect(api.list()).toHaveLength(1);
  });

  it('sees a list another tab wrote', () => {
    const { api, local } = setup();
    const other = createSavedReceivers({ local, session: new MemoryStorage() });
    other.recordUse(B, {});
    api.reload();
    expect(api.list().map((r) => r.url)).toEqual([B]);
    api.recordUse(A, {});
    expect(api.list().map((r) => r.url)).toEqual([A, B]);
  });
});
