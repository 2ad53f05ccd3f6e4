import { spawn } from 'node:child_process';

/**
 * Opens `url` with the platform's own opener. Never fails: a machine with no browser or no display (CI, SSH)
 * gets the URL printed instead, which the caller does anyway.
 */
export function openBrowser(url: string, log: (line: string) => void = console.log): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['explorer.exe', [url]]
        : ['xdg-open', [url]];
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    log('  (no display here to open a browser on: open the URL above yourself)');
    return;
  }
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.once('error', () =>
      log(`  (could not run ${command} to open a browser: open the URL above yourself)`),
    );
    child.unref();
  } catch {
    log(`  (could not open a browser: open the URL above yourself)`);
  }
}
