const LIVE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/**
 * A link from a receiver is live only if it is http(s) or mailto; anything else (javascript:, data:, file:,
 * vbscript:, relative tricks) is shown as text. Returns the href to use, or undefined.
 */
export function safeHref(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || raw.length > 8192) return undefined;
  // Browsers ignore control characters and whitespace inside a scheme ("java\tscript:"); so do we, before judging.
  // eslint-disable-next-line no-control-regex -- matching control characters is the point here
  const cleaned = raw.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  try {
    const url = new URL(cleaned);
    return LIVE_PROTOCOLS.has(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

const IMAGE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
]);
const AUDIO_TYPES = /^audio\/(mpeg|mp3|wav|x-wav|ogg|webm|aac|flac|mp4)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A data: URL for base64 media of an allowed type, or undefined. SVG is left out: it can carry script. */
export function mediaDataUrl(kind: 'image' | 'audio', mimeType: unknown, data: unknown): string | undefined {
  if (typeof mimeType !== 'string' || typeof data !== 'string') return undefined;
  const type = mimeType.toLowerCase().trim();
  if (kind === 'image' ? !IMAGE_TYPES.has(type) : !AUDIO_TYPES.test(type)) return undefined;
  const compact = data.replace(/\s+/g, '');
  if (!BASE64.test(compact)) return undefined;
  return `data:${type};base64,${compact}`;
}
