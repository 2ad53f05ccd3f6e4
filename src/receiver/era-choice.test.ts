import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { eraChoice, setEraChoice } from './era-choice';

/** localStorage as the browser has it, in memory. */
function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, String(value)),
  };
}

let storage: Storage;
beforeEach(() => {
  storage = memoryStorage();
  vi.stubGlobal('localStorage', storage);
});
afterEach(() => vi.unstubAllGlobals());

describe('the protocol chosen per receiver', () => {
  it('is remembered per receiver, auto by default and forgotten when set back to auto', () => {
    setEraChoice('http://127.0.0.1:3001/mcp', '2026-07-28');
    expect(eraChoice('http://127.0.0.1:3001/mcp')).toBe('2026-07-28');
    expect(eraChoice('http://127.0.0.1:3002/mcp')).toBe('auto');
    setEraChoice('http://127.0.0.1:3001/mcp', 'auto');
    expect(storage.getItem('taskscope.era')).toBe('{}');
  });

  it('writes no secret from the URL to storage, and still tells receivers apart by it', () => {
    const url = 'https://mcp.example/mcp?api_key=sk-live-123';
    // What an earlier version kept under the URL as typed.
    storage.setItem('taskscope.era', JSON.stringify({ [url]: '2025-11-25' }));
    setEraChoice(url, '2026-07-28');
    expect(storage.getItem('taskscope.era')).not.toContain('sk-live-123');
    expect(eraChoice(url)).toBe('2026-07-28');
    expect(eraChoice('https://mcp.example/mcp?api_key=other')).toBe('auto');
  });
});
