import { describe, expect, it } from 'vitest';
import { formatBytes } from './bytes';

describe('formatBytes', () => {
  it('reads as a network panel: bytes, then KB and MB with one decimal, none when it is .0', () => {
    expect(formatBytes(85)).toBe('85 B');
    expect(formatBytes(2048)).toBe('2 KB');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(3 * 1024 * 1024)).toBe('3 MB');
    expect(formatBytes(3.25 * 1024 * 1024)).toBe('3.3 MB');
  });
  it('never prints a negative or absurd size as a number', () => {
    expect(formatBytes(-1)).toBe('–');
    expect(formatBytes(Number.NaN)).toBe('–');
  });
});
