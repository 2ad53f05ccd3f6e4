/**
 * The page's side of /observed/* (the API in /work/notes/observed-api.md) for tests: the sources as JSON, and
 * one source's NDJSON stream read line by line as it comes, over plain node:http (any Host, no Origin).
 */
import http, { type IncomingMessage } from 'node:http';
import type { SeenMessage } from '../../src/mcp';

export interface ObservedLine {
  seq?: number;
  seen?: SeenMessage;
  dropped?: number;
}

export interface ObservedStream {
  status: number;
  /** The whole lines read so far, parsed. */
  lines: ObservedLine[];
  /** The server ended or cut the stream. */
  ended: () => boolean;
  /** Stops reading: what comes piles up in the socket until `resume`. */
  pause: () => void;
  resume: () => void;
  close: () => void;
}

const TOKEN_HEADER = 'X-Taskscope-Relay-Token';

/** Opens `/observed/messages?source=…&after=…` with `token`; resolves once the answer's headers came. */
export function observedStream(
  base: string,
  query: { source: string; after?: number },
  token: string,
  headers: Record<string, string> = {},
): Promise<ObservedStream> {
  const search = new URLSearchParams({ source: query.source });
  if (query.after !== undefined) search.set('after', String(query.after));
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/observed/messages?${search}`, {
      headers: { [TOKEN_HEADER]: token, ...headers },
      agent: false,
    });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      const lines: ObservedLine[] = [];
      let pending = '';
      let ended = false;
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        pending += text;
        const parts = pending.split('\n');
        pending = parts.pop() ?? '';
        for (const part of parts) if (part !== '') lines.push(JSON.parse(part) as ObservedLine);
      });
      res.on('error', () => undefined);
      res.on('close', () => (ended = true));
      resolve({
        status: res.statusCode ?? 0,
        lines,
        ended: () => ended,
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
      });
    });
  });
}

/** The messages of a stream's lines, `method` or `result` keys for reading at a glance. */
export function summary(lines: readonly ObservedLine[]): string[] {
  return lines.flatMap((line) => {
    const message = line.seen?.message as { method?: string; result?: unknown; error?: unknown } | undefined;
    if (!line.seen || !message) return [];
    const what = message.method ?? (message.result !== undefined ? 'result' : 'error');
    return [`${line.seen.from} ${what}`];
  });
}
