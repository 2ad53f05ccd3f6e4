/** Hands `blob` to the browser as a file download named `fileName`. */
export function downloadBlob(fileName: string, blob: Blob): void {
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
    // Revoked after the click's task: revoking within it can cancel a download the browser has not started.
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
}

/** Hands `text` to the browser as a file download. */
export function downloadText(fileName: string, text: string, mimeType: string): void {
  downloadBlob(fileName, new Blob([text], { type: mimeType }));
}
