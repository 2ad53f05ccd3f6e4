import { describe, expect, it } from 'vitest';
import { cutText, limitJson, quote } from './json';

describe('limitJson', () => {
  it('copies a value nested 100,000 deep without recursion, cut at the depth limit', () => {
    const deep = JSON.parse(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`) as unknown;
    const { value, cut } = limitJson(deep, { maxDepth: 3, maxNodes: 1000 });
    expect(cut).toBe(true);
    expect(value).toEqual({ a: { a: { a: '… (nested deeper than Taskscope shows)' } } });
    expect(() => JSON.stringify(value)).not.toThrow();
  });

  it('stops at the value budget with one note, so a million-element array does not stay a million long', () => {
    const { value, cut } = limitJson(
      { list: Array.from({ length: 1_000_000 }, (_, i) => i) },
      { maxDepth: 8, maxNodes: 10 },
    );
    expect(cut).toBe(true);
    expect((value as { list: unknown[] }).list).toHaveLength(10);
    expect((value as { list: unknown[] }).list.at(-1)).toBe('… (too many values to show)');
  });

  it('keeps a key named __proto__ as a key, never as the prototype', () => {
    const raw = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as unknown;
    const { value } = limitJson(raw);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect((value as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.keys(value as object)).toEqual(['__proto__', 'ok']);
  });

  it('leaves a small, shallow value as it was', () => {
    expect(limitJson({ a: [1, { b: 'c' }] })).toEqual({ value: { a: [1, { b: 'c' }] }, cut: false });
  });
});

describe('cutText and quote', () => {
  it('cuts a long string to a string of its own, and quotes briefly', () => {
    const long = 'x'.repeat(1_000_000);
    expect(cutText(long, 10)).toBe('xxxxxxxxxx');
    expect(cutText('short', 10)).toBe('short');
    expect(quote(long).length).toBeLessThan(60);
  });
});
