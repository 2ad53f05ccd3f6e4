/** A size as a network panel shows it: 85 B, 1.5 KB, 2 KB, 3.2 MB (one decimal, none when it is .0). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '–';
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  const trim = (n: number) => n.toFixed(1).replace(/\.0$/, '');
  if (bytes < 1024 * 1024) return `${trim(bytes / 1024)} KB`;
  return `${trim(bytes / 1024 / 1024)} MB`;
}
