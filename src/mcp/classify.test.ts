import { describe, expect, it } from 'vitest';
import { classifyError } from './classify';
import { HttpStatusError, LocalRefusal, parseRetryAfter } from './errors';
import { rpcError } from '../../test/fixtures/shapes';
import { RpcError } from './session-2026';

describe('classifyError', () => {
  it('-32602 on tasks/get for a task we knew: purged', () => {
    const c = classifyError(rpcError(-32602, 'Task has expired'), { method: 'tasks/get', knownTask: true });
    expect(c).toMatchObject({ kind: 'purged', code: -32602, detail: 'Task has expired' });
  });

  it('-32602 on tasks/get for a task never seen: unknown-task', () => {
    expect(classifyError(rpcError(-32602, 'Task not found'), { method: 'tasks/get' }).kind).toBe(
      'unknown-task',
    );
  });

  it('-32602 from tasks/result on a live task: not-ready (the user documents’ rule)', () => {
    const c = classifyError(rpcError(-32602, 'Task not terminal'), {
      method: 'tasks/result',
      knownTask: true,
      taskLive: true,
    });
    expect(c.kind).toBe('not-ready');
  });

  it('-32602 without context reads "expired" as purged', () => {
    expect(classifyError(rpcError(-32602, 'Task has expired')).kind).toBe('purged');
  });

  it('a 401 or 403 whose body is a JSON-RPC error is a sign-in wall, not a protocol error', () => {
    expect(classifyError(new RpcError(-32001, 'Unauthorized', undefined, 401)).kind).toBe('auth');
    expect(classifyError(new RpcError(-32001, 'Forbidden', undefined, 403)).httpStatus).toBe(403);
    expect(classifyError(new RpcError(-32022, 'Unsupported', undefined, 400)).kind).toBe('protocol');
  });

  it('-32601: unsupported', () => {
    expect(classifyError(rpcError(-32601, 'Method not found'), { method: 'tasks/get' })).toMatchObject({
      kind: 'unsupported',
      message: 'The receiver does not support tasks/get (-32601).',
    });
  });

  it('-32600 on tools/call (task augmentation refused): unsupported', () => {
    expect(classifyError(rpcError(-32600, 'no tasks'), { method: 'tools/call' }).kind).toBe('unsupported');
  });

  it('the 2026-07-28 refusals say what went wrong and what to do', () => {
    expect(classifyError(rpcError(-32020, 'Mcp-Name does not match'), { method: 'tasks/get' })).toMatchObject(
      {
        kind: 'protocol',
        message: expect.stringMatching(
          /headers and body disagree \(-32020\): a proxy .* Mcp-Name does not match$/,
        ),
      },
    );
    expect(classifyError(rpcError(-32021, 'task required'), { method: 'tools/call' })).toMatchObject({
      kind: 'unsupported',
      message: expect.stringContaining(
        'this call can run only as a task, and tasks need the 2026-07-28 tasks extension',
      ),
    });
    const version = classifyError(
      Object.assign(rpcError(-32022, 'Unsupported protocol version'), {
        data: { supported: ['2026-07-28'] },
      }),
      { method: 'initialize' },
    );
    expect(version).toMatchObject({
      kind: 'protocol',
      message: expect.stringContaining('it supports 2026-07-28'),
    });
  });

  it('a 2.4 server refusing its own bare task result is said as such, not as rejected parameters', () => {
    const c = classifyError(
      rpcError(-32602, "Invalid params: content is required when the body carries 'task'"),
      { method: 'tools/call' },
    );
    expect(c.kind).toBe('protocol');
    expect(c.message).toMatch(
      /^The receiver refused its own task result: .* Connect with the protocol on auto or 2026-07-28\.$/,
    );
  });

  it("a tool result the receiver's own SDK refuses is said as the receiver's fault, not the arguments'", () => {
    const c = classifyError(
      rpcError(-32602, 'Invalid tools/call result: [{"path":["content"],"message":"expected array"}]'),
      { method: 'tools/call' },
    );
    expect(c.kind).toBe('protocol');
    expect(c.message).toMatch(
      /^The receiver's own SDK refused the result its tool returned: .*expected array/,
    );
    expect(c.message).not.toContain('rejected the parameters');
    // Arguments the receiver refuses stay the caller's to fix.
    expect(
      classifyError(rpcError(-32602, 'Invalid arguments for tool x'), { method: 'tools/call' }).message,
    ).toBe('The receiver rejected the parameters: Invalid arguments for tool x');
  });

  it('-32429 with retry data: rate-limited', () => {
    expect(classifyError(rpcError(-32429, 'Too Many Requests', { retryAfter: 2 }))).toMatchObject({
      kind: 'rate-limited',
      retryAfterMs: 2000,
    });
  });

  it('HTTP 429 with Retry-After: rate-limited', () => {
    expect(classifyError(new HttpStatusError(429, 'slow down', 3000))).toMatchObject({
      kind: 'rate-limited',
      httpStatus: 429,
      retryAfterMs: 3000,
    });
  });

  it('HTTP 404 and 400-with-session: session-lost', () => {
    expect(classifyError(new HttpStatusError(404, '')).kind).toBe('session-lost');
    expect(classifyError(new HttpStatusError(400, 'Bad Request: No valid session ID provided')).kind).toBe(
      'session-lost',
    );
    expect(classifyError(new HttpStatusError(400, 'bad json')).kind).toBe('other');
  });

  it('HTTP 401 and 403 (Origin refusal included): auth', () => {
    expect(classifyError(new HttpStatusError(401, '')).kind).toBe('auth');
    const origin = classifyError(new HttpStatusError(403, 'Origin http://x is not allowed'));
    expect(origin.kind).toBe('auth');
    expect(origin.message).toMatch(/Origin/);
  });

  it('the SDK’s StreamableHTTPError (HTTP status as code)', () => {
    const e = Object.assign(new Error('Streamable HTTP error: Error POSTing to endpoint: gone'), {
      code: 404,
    });
    expect(classifyError(e).kind).toBe('session-lost');
  });

  it('a fetch TypeError: cors-or-network, naming CORS', () => {
    const c = classifyError(new TypeError('Failed to fetch'));
    expect(c.kind).toBe('cors-or-network');
    expect(c.message).toMatch(/CORS/);
  });

  it('a refused connection in Node says so', () => {
    const e = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
    });
    expect(classifyError(e).message).toMatch(/refused/);
  });

  it('unparseable answers: protocol', () => {
    expect(classifyError(new SyntaxError('Unexpected token <')).kind).toBe('protocol');
    expect(classifyError(Object.assign(new Error('invalid'), { name: 'ZodError' })).kind).toBe('protocol');
    expect(classifyError(rpcError(-32700, 'Parse error')).kind).toBe('protocol');
  });

  it('timeouts', () => {
    expect(classifyError(rpcError(-32001, 'Request timed out')).kind).toBe('timeout');
    expect(classifyError(Object.assign(new Error('aborted'), { name: 'AbortError' })).kind).toBe('timeout');
  });

  it('a local refusal: unsupported, with its own words', () => {
    expect(classifyError(new LocalRefusal('echo does not run as a task'))).toEqual({
      kind: 'unsupported',
      message: 'echo does not run as a task',
    });
  });

  it.each([null, undefined, 0, 'boom', { weird: true }, Symbol('x')])(
    'anything else (%s): other',
    (value) => {
      expect(classifyError(value).kind).toBe('other');
    },
  );
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, ignores the rest', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter('0.5')).toBe(500);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});

describe('classifyError: where the connection went', () => {
  it('an HTTP 404 or 405 to initialize is no MCP endpoint; a web page is said to be one', () => {
    expect(
      classifyError(new HttpStatusError(404, '<html>Not found</html>'), { method: 'initialize' }).message,
    ).toMatch(/No MCP endpoint at this URL/);
    expect(classifyError(new HttpStatusError(404, ''), { method: 'tasks/get' }).kind).toBe('session-lost');
    const html = Object.assign(new Error('Unexpected content type: text/html; charset=utf-8'), { code: -1 });
    expect(classifyError(html, { method: 'initialize' }).message).toMatch(/web page/);
  });

  it('a network failure after the session opened is the receiver going away, not CORS', () => {
    const failed = new TypeError('Failed to fetch');
    expect(classifyError(failed, { method: 'tasks/get' }).message).toMatch(
      /answered before, so this is not CORS/,
    );
    expect(classifyError(failed, { method: 'initialize' }).message).toMatch(/CORS/);
  });
});
