import { describe, expect, it } from 'vitest';
import { formatCountdown, formatDateTime, formatFileStamp, formatMs } from './time';

describe('formatting', () => {
  it('formats countdowns in the same words as durations, to the second, never raw ms', () => {
    expect(formatCountdown(7_000)).toBe('7 s');
    expect(formatCountdown(6_001)).toBe('7 s');
    expect(formatCountdown(249_001)).toBe('4 min 10 s');
    expect(formatCountdown(240_000)).toBe('4 min');
    expect(formatCountdown(3_909_000)).toBe('1 h 5 min');
    expect(formatCountdown(-5)).toBe('0 s');
    expect(formatCountdown(3 * 86_400_000)).toBe('3 days');
    expect(formatCountdown(Infinity)).toBe('effectively never');
  });
  it('formats latencies and intervals', () => {
    expect(formatMs(850)).toBe('850 ms');
    expect(formatMs(1500)).toBe('1.5 s');
    expect(formatMs(12_000)).toBe('12 s');
    expect(formatMs(120_000)).toBe('2 min');
  });
});

describe('formatDateTime', () => {
  it('reads as the date then the 24-hour clock, in local time, whatever the locale', () => {
    const at = new Date(2026, 11, 1, 21, 4, 5, 678).getTime();
    expect(formatDateTime(at)).toBe('2026-12-01 21:04:05');
    expect(formatDateTime(Number.NaN)).toBe('—');
  });
});

describe('formatFileStamp', () => {
  it('is the local date and time, digits only, for file names', () => {
    expect(formatFileStamp(new Date(2026, 11, 1, 7, 15, 3))).toBe('20261201-071503');
  });
});
