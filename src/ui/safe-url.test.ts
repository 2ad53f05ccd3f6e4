import { describe, expect, it } from 'vitest';
import { mediaDataUrl, safeHref } from './safe-url';

describe('safeHref', () => {
  it.each(['https://example.com/a?b', 'http://127.0.0.1:3001/', 'mailto:ops@example.com'])(
    'keeps %s live',
    (url) => {
      expect(safeHref(url)).toBeDefined();
    },
  );
  it.each([
    'javascript:alert(1)',
    'JAVASCRIPT:alert(1)',
    ' javascript:alert(1)',
    'java\tscript:alert(1)',
    'java\nscript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox',
    'file:///etc/passwd',
    '/relative',
    '',
    42,
    null,
  ])('refuses %j', (url) => {
    expect(safeHref(url)).toBeUndefined();
  });
});

describe('mediaDataUrl', () => {
  it('builds data URLs for allowed types with valid base64', () => {
    expect(mediaDataUrl('image', 'image/png', 'iVBORw0KGgo=')).toBe('data:image/png;base64,iVBORw0KGgo=');
    expect(mediaDataUrl('audio', 'audio/wav', 'UklGRg==')).toBe('data:audio/wav;base64,UklGRg==');
  });
  it('refuses SVG, unknown types and non-base64 data', () => {
    expect(mediaDataUrl('image', 'image/svg+xml', 'PHN2Zz4=')).toBeUndefined();
    expect(mediaDataUrl('image', 'text/html', 'PGI+')).toBeUndefined();
    expect(mediaDataUrl('image', 'image/png', '"><script>')).toBeUndefined();
    expect(mediaDataUrl('audio', 'image/png', 'AAAA')).toBeUndefined();
  });
});
