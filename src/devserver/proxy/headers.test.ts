import { describe, expect, it } from 'vitest';
import { clientAnswerHeaders, upstreamRequestHeaders } from './headers';
import { clientQuery } from './forward';

describe('the proxy’s headers', () => {
  it('up: end-to-end headers as they came (case, order, repeats), Host the upstream’s, hop-by-hop ones dropped', () => {
    const raw = [
      'Host', '127.0.0.1:5173',
      'Connection', 'keep-alive, X-Hop',
      'X-Hop', 'dropped: Connection names it',
      'Keep-Alive', 'timeout=5',
      'Transfer-Encoding', 'chunked',
      'TE', 'trailers',
      'Upgrade', 'h2c',
      'Proxy-Connection', 'keep-alive',
      'Authorization', 'Bearer client',
      'Mcp-Session-Id', 's1',
      'Cookie', 'a=1',
      'Cookie', 'b=2',
      'Last-Event-ID', '7',
      'traceparent', '00-1-2-01',
    ]; // prettier-ignore
    expect(upstreamRequestHeaders(raw, new URL('https://up.example:8443/mcp'), [])).toEqual([
      'Host', 'up.example:8443',
      'Authorization', 'Bearer client',
      'Mcp-Session-Id', 's1',
      'Cookie', 'a=1',
      'Cookie', 'b=2',
      'Last-Event-ID', '7',
      'traceparent', '00-1-2-01',
      // The client's chunked body is framed again on this hop.
      'Transfer-Encoding', 'chunked',
    ]); // prettier-ignore
  });

  it('up: a --header replaces every client header of its name, in any case', () => {
    const raw = ['authorization', 'Bearer client', 'AUTHORIZATION', 'Bearer again', 'Accept', '*/*'];
    expect(
      upstreamRequestHeaders(raw, new URL('http://up.example/mcp'), [
        { name: 'Authorization', value: 'Bearer cli' },
        { name: 'X-Extra', value: '1' },
      ]),
    ).toEqual(['Host', 'up.example', 'Accept', '*/*', 'Authorization', 'Bearer cli', 'X-Extra', '1']);
  });

  it('down: the upstream’s end-to-end headers, and the two added ones', () => {
    const raw = [
      'Content-Type', 'text/event-stream',
      'Transfer-Encoding', 'chunked',
      'Connection', 'keep-alive',
      'Set-Cookie', 'a=1',
      'Set-Cookie', 'b=2',
      'Content-Encoding', 'gzip',
      'Location', 'https://elsewhere.example/',
    ]; // prettier-ignore
    expect(clientAnswerHeaders(raw)).toEqual([
      'Content-Type', 'text/event-stream',
      'Set-Cookie', 'a=1',
      'Set-Cookie', 'b=2',
      'Content-Encoding', 'gzip',
      'Location', 'https://elsewhere.example/',
      'Content-Security-Policy', 'sandbox',
      'X-Content-Type-Options', 'nosniff',
    ]); // prettier-ignore
  });
});

describe('the client’s query string', () => {
  it('goes up after the upstream’s own, without a parameter the upstream URL sets', () => {
    const upstream = new URL('http://up.example/mcp?tenant=ours');
    expect(clientQuery('/proxy/up/mcp?tenant=theirs&x=1&tenant=again', upstream)).toBe('&x=1');
    expect(clientQuery('/proxy/up/mcp?x=1', new URL('http://up.example/mcp'))).toBe('?x=1');
    expect(clientQuery('/proxy/up/mcp', upstream)).toBe('');
    expect(clientQuery('/proxy/up/mcp?ten%61nt=theirs', upstream)).toBe('');
  });
});
