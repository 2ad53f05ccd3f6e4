import { describe, expect, it } from 'vitest';
import { keepLines, oneLine } from './control-chars';

describe('control characters', () => {
  it('oneLine turns escape sequences, breaks and separators into single spaces', () => {
    expect(oneLine('a\u001b[2Jb\r\n\u2028c\u0085d')).toBe('a [2Jb c d');
  });

  it('keepLines keeps line feeds and tabs and drops the rest', () => {
    expect(keepLines('a\tb\nc\u001b[31md\u007f\r')).toBe('a\tb\nc[31md');
    expect(keepLines('a\u0007b', ' ')).toBe('a b');
  });
});
