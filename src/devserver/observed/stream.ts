/**
 * One reader's stream of a source's messages (GET /observed/messages): the kept ones above `after`, then each
 * new one as it comes, one JSON object a line, never ended by the server while the reader keeps up. Messages
 * are read from the source's ring as the socket takes them, so a reader holds at most PACE_BYTES (and the one
 * message past it) of its own; one that falls so far behind that the ring drops what it has not been sent is
 * cut off, and reconnects with `after` (the gap is then said in a `{"dropped": N}` line).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SAFE_ANSWER_HEADERS } from '../relay/headers.js';
import type { ObservedSource } from './source.js';

/** Unsent output past which nothing more is written until the socket drains. */
export const PACE_BYTES = 1024 * 1024;

export function streamMessages(
  req: IncomingMessage,
  res: ServerResponse,
  source: ObservedSource,
  after: number,
  paceBytes = PACE_BYTES,
): void {
  // The stream may be quiet for hours: nothing times it out.
  req.socket.setTimeout(0);
  res.writeHead(200, {
    ...SAFE_ANSWER_HEADERS,
    'content-type': 'application/x-ndjson; charset=utf-8',
  });
  res.flushHeaders();

  let last = after;
  let first = true;
  let draining = false;
  let done = false;

  /** The next kept message is not the next one this reader needs. */
  const gapAhead = (): number => {
    const [next] = source.after(last, 1);
    return next && next.seq > last + 1 ? next.seq - last - 1 : 0;
  };

  const pump = () => {
    while (!done && res.writableLength < paceBytes) {
      const [next] = source.after(last, 1);
      if (!next) return;
      if (next.seq > last + 1) {
        // A gap before the first line is what the reader asked for and the caps dropped; a gap later means
        // the ring moved on while this reader lagged.
        if (!first) return cutOff();
        res.write(`${JSON.stringify({ dropped: next.seq - last - 1 })}\n`);
      }
      first = false;
      res.write(`${JSON.stringify({ seq: next.seq, seen: next.seen })}\n`);
      last = next.seq;
    }
    if (done || draining) return;
    draining = true;
    res.once('drain', () => {
      draining = false;
      pump();
    });
  };

  const cutOff = () => {
    finish();
    res.destroy();
  };

  const unsubscribe = source.subscribe(() => {
    if (done) return;
    if (!draining) pump();
    else if (gapAhead() > 0) cutOff();
  });
  const finish = () => {
    if (done) return;
    done = true;
    unsubscribe();
  };
  res.once('close', finish);
  pump();
  first = false;
}
