/**
 * Sending a vetted request on to the receiver and streaming its answer back. Apart from the route because this is
 * where the receiver's untrusted answer is handled: its deadlines, its byte cap, and which answers the page sees.
 */
import http from 'node:http';
import https from 'node:https';
import { pipeline, Transform } from 'node:stream';
import type { Request, Response } from 'express';
import { answerHeadersFrom, contentTypeOf, isPassedType, requestHeadersFor } from './headers.js';
import { refuse } from './refuse.js';
import { cut, describeTarget, pinnedLookup, type VettedTarget } from './target.js';

export interface ForwarderOptions {
  headersTimeoutMs: number;
  answerLimitBytes: number;
}

export interface Forwarder {
  forward: (req: Request, res: Response, target: VettedTarget, body: Buffer) => void;
  /** Drops the kept-alive connections to receivers. */
  close: () => void;
}

/** Errors a person can act on, instead of a bare code. */
export function networkReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'the connection was reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'no route to the host';
    case 'ENOTFOUND':
      return 'no such host';
    default:
      if (typeof code === 'string' && /CERT|SSL|TLS|SELF_SIGNED|EPROTO/.test(code))
        return `TLS failed (${code})`;
      return typeof code === 'string' ? `network error (${code})` : 'network error';
  }
}

class AnswerTooLarge extends Error {}

function capBytes(limit: number): Transform {
  let total = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      total += chunk.length;
      if (total > limit) done(new AnswerTooLarge(`answer past ${limit} bytes`));
      else done(null, chunk);
    },
  });
}

export function createForwarder({ headersTimeoutMs, answerLimitBytes }: ForwarderOptions): Forwarder {
  const httpAgent = new http.Agent({ keepAlive: true });
  const httpsAgent = new https.Agent({ keepAlive: true });

  const forward = (req: Request, res: Response, target: VettedTarget, body: Buffer) => {
    const where = describeTarget(target.url);
    const seconds = Math.round(headersTimeoutMs / 100) / 10;
    const headers = requestHeadersFor(req.headers, target);
    if (body.length > 0 || req.method === 'POST') headers['content-length'] = body.length;
    const secure = target.url.protocol === 'https:';
    let upstream: http.ClientRequest;
    try {
      upstream = (secure ? https : http).request({
        protocol: target.url.protocol,
        hostname: target.hostname,
        port: target.port,
        path: `${target.url.pathname}${target.url.search}`,
        method: req.method,
        headers,
        lookup: pinnedLookup(target.addresses),
        agent: secure ? httpsAgent : httpAgent,
      });
    } catch {
      // Node refuses header values or paths it could not send verbatim; nothing has gone out.
      refuse(req, res, 400, `The relay cannot send this request to ${where}`);
      return;
    }

    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        upstream.destroy();
      }, headersTimeoutMs);
    };
    const disarm = () => clearTimeout(timer);
    arm();

    res.once('close', () => {
      disarm();
      // The page gave up (abort, deadline, closed tab): so does the receiver's side.
      if (!res.writableFinished) upstream.destroy();
    });

    upstream.on('error', (error) => {
      disarm();
      if (res.destroyed || res.writableEnded) return;
      if (timedOut) {
        refuse(req, res, 504, `The relay timed out: ${where} did not answer within ${seconds} s`);
      } else {
        refuse(req, res, 502, `The relay could not reach ${where}: ${networkReason(error)}`);
      }
    });

    upstream.on('response', (answer) => {
      disarm();
      const status = answer.statusCode ?? 502;
      const refuseAnswer = (message: string) => {
        upstream.destroy();
        refuse(req, res, 502, message);
      };
      if (status >= 300 && status < 400) {
        const location = answer.headers.location;
        refuseAnswer(
          location
            ? `The receiver redirected to ${cut(location)}; the relay does not follow redirects`
            : `The receiver answered HTTP ${status}; the relay does not follow redirects`,
        );
        return;
      }
      const encoding = (answer.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
      if (encoding !== 'identity') {
        refuseAnswer(`The receiver sent a ${cut(encoding)}-encoded answer the relay did not ask for`);
        return;
      }
      const declared = answer.headers['content-length'];
      const length = declared === undefined ? undefined : Number(declared);
      if (length !== undefined && length > answerLimitBytes) {
        refuseAnswer(
          `The receiver's answer (${length} bytes) is over the relay's ${answerLimitBytes}-byte cap`,
        );
        return;
      }
      const type = contentTypeOf(answer);
      const notPassed = `The receiver answered HTTP ${status} with ${
        type ? cut(type) : 'no Content-Type'
      }; the relay passes only JSON and event streams`;

      if (isPassedType(type)) {
        res.writeHead(status, answerHeadersFrom(answer, true));
        // An event stream may say nothing for a while: the page should see the status now.
        res.flushHeaders();
        pipeline(answer, capBytes(answerLimitBytes), res, (error) => {
          if (error) {
            upstream.destroy();
            res.destroy();
          }
        });
        return;
      }
      const passEmpty = () => {
        res.writeHead(status, answerHeadersFrom(answer, false));
        res.end();
      };
      if (status === 204 || length === 0) {
        answer.resume();
        passEmpty();
        return;
      }
      // An error status says what happened (404: the session is gone, or no endpoint; 401: auth) even when
      // its body is a page the relay will not pass: the status goes through, the body does not.
      if (status >= 400) {
        answer.destroy();
        passEmpty();
        return;
      }
      if (length !== undefined) {
        refuseAnswer(notPassed);
        return;
      }
      // No length (chunked, or until close): a 202 with nothing in it is normal, so wait for a first byte.
      arm();
      // Whichever comes first decides: a first byte, the end, or a break.
      let decided = false;
      const decide = (then: () => void) => () => {
        if (decided) return;
        decided = true;
        disarm();
        then();
      };
      answer.once(
        'data',
        decide(() => refuseAnswer(notPassed)),
      );
      answer.once('end', decide(passEmpty));
      answer.once(
        'error',
        decide(() =>
          timedOut
            ? refuse(req, res, 504, `${where} sent no answer body within ${seconds} s`)
            : refuseAnswer(`The receiver's answer from ${where} broke off`),
        ),
      );
    });

    upstream.end(body);
  };

  return {
    forward,
    close: () => {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
