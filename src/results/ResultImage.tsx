import { useState } from 'react';
import { ZoomIn } from 'lucide-react';
import { focusRing } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { formatBytes } from '../format/bytes';

/** Small images are drawn this big (their longest side), by whole factors so their pixels stay square. */
const FIT_PX = 128;

interface Size {
  width: number;
  height: number;
}

/** Bytes behind a base64 string, without decoding it. */
export function base64Bytes(data: string): number {
  const compact = data.replace(/\s+/g, '');
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((compact.length * 3) / 4) - padding);
}

/** The whole-number factor a tiny image is drawn at; 1 for anything already a fair size. */
export function upscale({ width, height }: Size, target = FIT_PX): number {
  const longest = Math.max(width, height, 1);
  return longest >= target ? 1 : Math.max(1, Math.floor(target / longest));
}

/**
 * An image from a result, with its natural size and bytes said: a tiny one is drawn larger with crisp
 * pixels, a large one fits the pane, and a click opens it as large as the window allows.
 */
export function ResultImage({ src, data, mimeType }: { src: string; data: string; mimeType: string }) {
  const [natural, setNatural] = useState<Size | null>(null);
  const [zoomed, setZoomed] = useState(false);
  const scale = natural ? upscale(natural) : 1;
  const zoomScale = natural
    ? upscale(natural, Math.min(window.innerWidth * 0.8, window.innerHeight * 0.7))
    : 1;
  const sizeText = natural ? `${natural.width}×${natural.height} px` : 'loading';
  const pixelated = scale > 1 ? '[image-rendering:pixelated]' : '';
  return (
    <figure className="min-w-0 space-y-1">
      <button
        type="button"
        onClick={() => setZoomed(true)}
        className={`group relative block max-w-full cursor-zoom-in rounded ${focusRing}`}
        aria-label={`Zoom the image (${sizeText})`}
        title="Click to zoom"
      >
        <img
          src={src}
          alt="Image from the result"
          data-testid="result-image"
          onLoad={(e) =>
            setNatural({ width: e.currentTarget.naturalWidth, height: e.currentTarget.naturalHeight })
          }
          style={natural ? { width: natural.width * scale } : undefined}
          className={`block h-auto max-h-64 max-w-full rounded border border-slate-200 object-contain dark:border-slate-800 ${pixelated}`}
        />
        <ZoomIn
          size={14}
          aria-hidden
          className="absolute top-1 right-1 rounded bg-white/80 text-slate-600 opacity-0 group-hover:opacity-100 group-focus-visible:opacity-100 dark:bg-slate-900/80 dark:text-slate-300"
        />
      </button>
      <figcaption className="text-xs text-slate-500" data-testid="image-size">
        {mimeType} · {sizeText} · {formatBytes(base64Bytes(data))}
        {scale > 1 ? ` · shown ×${scale}` : ''}
      </figcaption>
      {zoomed && (
        <Dialog title={`Image, ${sizeText}`} onClose={() => setZoomed(false)} testId="image-zoom">
          <img
            src={src}
            alt="Image from the result, zoomed"
            data-testid="zoomed-image"
            style={natural ? { width: natural.width * zoomScale } : undefined}
            className={`block h-auto max-h-[75vh] max-w-[85vw] object-contain ${zoomScale > 1 ? '[image-rendering:pixelated]' : ''}`}
          />
        </Dialog>
      )}
    </figure>
  );
}
