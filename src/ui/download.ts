/**
 * Kept alive this long after the click: some browsers read the blob only once the download has really started
 * (after a save dialog, say), and a URL revoked before then cancels it. Half a minute is plenty; the blob is
 * freed after.
 */
const REVOKE_AFTER_MS = 30_000;

/** Hands `blob` to the browser as a file download named `fileName`. */
function downloadBlob(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  // Firefox follows only a link that is in the document.
  document.body.append(link);
  try {
    link.click();
  } finally {
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
  }
}

/** Hands `text` to the browser as a file download. */
export function downloadText(fileName: string, text: string, mimeType: string): void {
  downloadBlob(fileName, new Blob([text], { type: mimeType }));
}
