/// <reference lib="webworker" />
// Timers for the tracker, kept in a worker: Chrome throttles a hidden page's chained timers to once a minute
// after five minutes, which would stop live polling in a background tab. Dedicated workers are not throttled so.
const timers = new Map<number, ReturnType<typeof setTimeout>>();

self.onmessage = (
  event: MessageEvent<{ op: 'set'; id: number; ms: number } | { op: 'clear'; id: number }>,
) => {
  const message = event.data;
  if (message.op === 'set') {
    timers.set(
      message.id,
      setTimeout(() => {
        timers.delete(message.id);
        self.postMessage(message.id);
      }, message.ms),
    );
  } else {
    clearTimeout(timers.get(message.id));
    timers.delete(message.id);
  }
};
