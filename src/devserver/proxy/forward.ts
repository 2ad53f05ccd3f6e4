/**
 * One client request on to the upstream and its answer back, unchanged: bodies byte for byte as they arrive
 * (compressed ones still compressed), end-to-end headers both ways, redirects passed on (node:http never
 * follows), no deadline and no cap — a 2025-11-25 tasks/result blocks for the whole task, a listen stream is
 * quiet for hours. Only the tap's copy is capped. The client going away closes the upstream request at once
 * (on 2026-07-28 closing a response stream is cancellation); the proxy never closes one on its own.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { networkReason } from '../relay/forward.js';
import { answerError, requestId } from './answers.js';
import { clientAnswerHeaders, rawHeader, upstreamRequestHeaders, type ExtraHeader } from './headers.js';
import type { ProxyTap, TapRecorder } from './tap.js';

export interface ProxyTarget {
  name: string;
  upstream: URL;
  /** How the upstream is named in messages (its URL, credentials replaced). */
  described: string;
  headers: readonly ExtraHeader[];
}

export interface Forwarder {
  forward: (req: IncomingMessage, res: ServerResponse, target: ProxyTarget) => void;
  /** Drops the kept-alive connections to upstreams. */
  close: () => void;
}

export interface ForwarderOptions {
  tap: ProxyTap;
  /** Told once when an upstream is refused as HTTP+SSE (the command prints it on stderr). */
  onWarning?: (message: string) => void;
  /** How long a GET's event stream may stay silent before its headers pass without the HTTP+SSE check. */
  sniffMs?: number;
}

/** The request body kept to read its id for a 502; MCP requests are small. */
const ID_BODY_LIMIT = 1024 * 1024;
/** An HTTP+SSE server names its endpoint in the first event, sent at once; more than this is not that. */
const SNIFF_BYTES = 4096;
const SNIFF_MS = 500;

export function createForwarder({
  tap,
  onWarning = console.error,
  sniffMs = SNIFF_MS,
}: ForwarderOptions): Forwarder {
  const warned = new Set<string>();
  const agents = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  };

  const forward = (req: IncomingMessage, res: ServerResponse, target: ProxyTarget) => {
    const { upstream } = target;
    const url = req.url ?? '';
    const path = `${upstream.pathname}${upstream.search}${clientQuery(url, upstream)}`;
    const recorder = tap.begin(target.name, req.method ?? 'GET', url, req.rawHeaders);
    // A stream may be silent for hours: nothing on this hop times it out.
    req.socket.setTimeout(0);

    let outgoing: http.ClientRequest;
    try {
      outgoing = (upstream.protocol === 'https:' ? https : http).request({
        protocol: upstream.protocol,
        hostname: upstream.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: upstream.port || undefined,
        method: req.method,
        path,
        headers: upstreamRequestHeaders(req.rawHeaders, upstream, target.headers),
        agent: agents[upstream.protocol as 'http:' | 'https:'],
      });
    } catch (error) {
      // Node refuses what it could not send verbatim (a header value it deems invalid); nothing went up.
      req.resume();
      recorder.end('failed', (error as Error).message);
      answerError(res, 400, null, -32600, `Taskscope proxy: cannot send this request to ${target.described}`);
      return;
    }

    const kept: Buffer[] = [];
    let keptBytes = 0;
    let bodyEnded = false;
    const afterBody: Array<() => void> = [];
    req.on('data', (chunk: Buffer) => {
      recorder.requestChunk(chunk);
      if (keptBytes < ID_BODY_LIMIT) {
        kept.push(chunk);
        keptBytes += chunk.length;
      }
    });
    req.once('end', () => {
      bodyEnded = true;
      recorder.requestEnd();
      for (const then of afterBody.splice(0)) then();
    });
    req.pipe(outgoing);

    let answered = false;
    res.once('close', () => {
      if (res.writableFinished) return;
      // The client went first: so does the upstream request, at once.
      outgoing.destroy();
      recorder.end('client-closed');
    });

    outgoing.on('error', (error) => {
      if (res.destroyed || res.writableEnded) return;
      if (answered || res.headersSent) {
        res.destroy();
        recorder.end('failed', `the upstream's answer broke off: ${networkReason(error)}`);
        return;
      }
      const cause = networkReason(error);
      recorder.end('failed', `${target.described} unreachable: ${cause}`);
      const reply = () =>
        answerError(
          res,
          502,
          requestId(Buffer.concat(kept)),
          -32603,
          `Taskscope proxy: ${target.described} unreachable: ${cause}`,
        );
      // The id is in the body: answer once the client has sent it all.
      req.unpipe(outgoing);
      req.resume();
      if (bodyEnded) reply();
      else afterBody.push(reply);
    });

    outgoing.on('response', (answer) => {
      answered = true;
      const type = (rawHeader(answer.rawHeaders, 'content-type') ?? '').toLowerCase();
      const sniff =
        req.method === 'GET' &&
        answer.statusCode === 200 &&
        type.startsWith('text/event-stream') &&
        rawHeader(answer.rawHeaders, 'content-encoding') === undefined;
      if (sniff)
        sniffLegacy(answer, res, recorder, sniffMs, (refused) => {
          if (!refused) return;
          const message = `Taskscope proxy: ${target.described} speaks HTTP+SSE (2024-11-05): its endpoint event would send the client past the proxy, which serves Streamable HTTP only`;
          // Once: a client that retries would otherwise fill the terminal with the same sentence.
          if (!warned.has(message)) {
            warned.add(message);
            onWarning(message);
          }
          outgoing.destroy();
          recorder.end('failed', message);
          answerError(res, 502, null, -32603, message);
        });
      else pass(answer, res, recorder, []);
    });
  };

  return {
    forward,
    close: () => {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

/** The answer's status and headers now, then its body chunk by chunk as it comes; `first` came before. */
function pass(answer: IncomingMessage, res: ServerResponse, recorder: TapRecorder, first: Buffer[]): void {
  if (res.destroyed) {
    answer.destroy();
    return;
  }
  try {
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, clientAnswerHeaders(answer.rawHeaders));
  } catch (error) {
    // A reason phrase or header value Node will not write as it came: say so rather than change it.
    answer.destroy();
    recorder.end('failed', `the upstream's answer cannot be passed on: ${(error as Error).message}`);
    answerError(
      res,
      502,
      null,
      -32603,
      "Taskscope proxy: the upstream's answer has a header it cannot pass on",
    );
    return;
  }
  // An event stream may say nothing for a while: the client sees the status now. Other answers' headers go
  // out with their first bytes (one write, not two), which come on the upstream's schedule, never ours.
  const type = rawHeader(answer.rawHeaders, 'content-type') ?? '';
  if (/^\s*text\/event-stream/i.test(type)) res.flushHeaders();
  recorder.response(answer.statusCode ?? 502, answer.rawHeaders);
  for (const chunk of first) {
    recorder.answerChunk(chunk);
    res.write(chunk);
  }
  res.once('finish', () => recorder.end('complete'));
  const broke = () => {
    if (res.writableEnded) return;
    res.destroy();
    recorder.end('failed', "the upstream's answer broke off");
  };
  answer.once('error', broke);
  answer.once('close', () => {
    if (!answer.complete) broke();
  });
  if (answer.readableEnded) {
    res.end();
    return;
  }
  answer.on('data', (chunk: Buffer) => recorder.answerChunk(chunk));
  answer.pipe(res);
}

/**
 * Holds a GET's event stream until its first event (at most `ms`, or SNIFF_BYTES) to see whether it is an
 * HTTP+SSE (2024-11-05) server's `endpoint` event; anything else is passed on with what was held.
 */
function sniffLegacy(
  answer: IncomingMessage,
  res: ServerResponse,
  recorder: TapRecorder,
  ms: number,
  refused: (yes: boolean) => void,
): void {
  const held: Buffer[] = [];
  let size = 0;
  let decided = false;
  const decide = (legacy: boolean) => {
    if (decided) return;
    decided = true;
    clearTimeout(timer);
    answer.off('data', onData);
    answer.off('end', onEnd);
    res.off('close', onClose);
    answer.pause();
    if (legacy) {
      answer.destroy();
      refused(true);
    } else {
      refused(false);
      pass(answer, res, recorder, held);
    }
  };
  const onData = (chunk: Buffer) => {
    held.push(chunk);
    size += chunk.length;
    const text = Buffer.concat(held).toString('utf8');
    const end = text.search(/\r?\n\r?\n|\r\r/);
    if (end >= 0) decide(/^event:\s?endpoint[ \t]*$/m.test(text.slice(0, end)));
    else if (size > SNIFF_BYTES) decide(false);
  };
  const onEnd = () => decide(false);
  const onClose = () => {
    if (decided) return;
    decided = true;
    clearTimeout(timer);
    answer.destroy();
  };
  const timer = setTimeout(() => decide(false), ms);
  answer.on('data', onData);
  answer.once('end', onEnd);
  res.once('close', onClose);
}

/**
 * The client's query string, passed on after the upstream's own; its path is not (the target is fixed), nor a
 * parameter the upstream URL sets itself (`?tenant=`): a server that reads the last of a name must read the
 * command line's.
 */
export function clientQuery(url: string, upstream: URL): string {
  const at = url.indexOf('?');
  if (at < 0) return '';
  const query = url.slice(at + 1);
  const own = new Set(upstream.searchParams.keys());
  const kept =
    own.size === 0
      ? query
      : query
          .split('&')
          .filter((pair) => {
            const name = pair.split('=')[0] ?? '';
            let decoded = name;
            try {
              decoded = decodeURIComponent(name.replace(/\+/g, ' '));
            } catch {
              // A name that does not decode is no name the upstream set.
            }
            return !own.has(decoded);
          })
          .join('&');
  return kept === '' ? '' : `${upstream.search ? '&' : '?'}${kept}`;
}
