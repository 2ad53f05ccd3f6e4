import { describe, expect, it } from 'vitest';
import { bodyMessages } from './seen-messages';
import type { TapExchange } from './tap-types';

const exchange = (status: number, body: string, truncated = false): TapExchange => ({
  seq: 7,
  proxy: 'up',
  startedAt: 1000,
  request: {
    method: 'POST',
    target: '/proxy/up/mcp',
    headers: [['Mcp-Session-Id', 's1']],
    body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tasks/get', params: { taskId: 't' } }),
    bodyBytes: 60,
    bodyTruncated: false,
  },
  response: { at: 1010, status, headers: [['Retry-After', '2']], contentType: 'text/plain' },
  body,
  events: [],
  answerBytes: body.length,
  truncated,
  droppedEvents: 0,
  endedAt: 1012,
});

describe('the messages an exchange carried', () => {
  it('an HTTP error without a JSON-RPC body answers the request it carried, with its status and Retry-After', () => {
    expect(bodyMessages(exchange(429, 'Too Many Requests'))).toEqual([
      {
        at: 1012,
        wallTime: 1012,
        from: 'server',
        message: {
          jsonrpc: '2.0',
          id: 4,
          error: { code: -32429, message: 'HTTP 429 without a JSON-RPC body' },
        },
        httpStatus: 429,
        responseHeaders: { 'retry-after': '2' },
        exchange: 7,
        sessionId: 's1',
      },
    ]);
  });

  it('a body the tap cut is no answer at all, and a JSON one is read as it is', () => {
    expect(bodyMessages(exchange(500, '{"jsonrpc":"2.0","id":4,"err', true))).toEqual([]);
    expect(bodyMessages(exchange(200, '{"jsonrpc":"2.0","id":4,"result":{}}')).map((m) => m.message)).toEqual(
      [{ jsonrpc: '2.0', id: 4, result: {} }],
    );
  });
});
