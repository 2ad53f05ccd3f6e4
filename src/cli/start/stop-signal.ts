/**
 * How a long-running command ends: on SIGINT or SIGTERM (or another trigger it names) it stops once, with the
 * exit code its `stop` gives; a second signal while stopping only calls `again` (the default would kill it).
 */
export function untilStopped(
  stop: () => Promise<number>,
  options: { again?: () => void; also?: (trigger: () => void) => void } = {},
): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    const onSignal = () => {
      if (stopping) {
        options.again?.();
        return;
      }
      stopping = true;
      void stop().then((code) => {
        // In-process runs (tests) leave no listener behind.
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        resolve(code);
      });
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    options.also?.(onSignal);
  });
}
