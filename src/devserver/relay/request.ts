/**
 * Whether a request to the relay comes from Taskscope's own page, and its body. Apart from the route so the
 * checks that must pass before anything is forwarded sit together and can be reviewed as one.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import { refusal } from '../guard.js';

/** Compares in constant time, so the answer's timing says nothing about how much of a guess was right. */
export function tokenChecker(token: string): (given: string | string[] | undefined) => boolean {
  const expected = Buffer.from(token);
  return (given) => {
    if (typeof given !== 'string') return false;
    const buffer = Buffer.from(given);
    return buffer.length === expected.length && timingSafeEqual(buffer, expected);
  };
}

/** Our own page, or no browser page at all: Sec-Fetch-Site is absent outside browsers. */
export function isFromOwnPage(req: Request, allowedHosts: readonly string[]): boolean {
  return refusal(req.headers, { allowedHosts, pages: 'own', fetchSite: true }) === undefined;
}

/** The whole request body, or undefined once it passes `limit` (the rest is then dropped as it comes). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done();
        resolve(undefined);
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onClose = () => {
      done();
      reject(new Error('The page closed the request before its body ended'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
