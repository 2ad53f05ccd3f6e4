import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { curlCommand, secretsWithheld, shellQuote } from './curl';

const run = promisify(execFile);
const dir = mkdtempSync(path.join(tmpdir(), 'taskscope-curl-'));
const marker = path.join(dir, 'pwned');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hostile = `it's "quoted" $(touch ${marker}) \`touch ${marker}\` $HOME \\ '\\'' ; rm -rf nothing\nsecond line`;

describe('shell quoting', () => {
  it('keeps quotes, $(…), backticks, variables, backslashes and newlines inert: the shell gives back the same text', async () => {
    const { stdout } = await run('sh', ['-c', `printf '%s' ${shellQuote(hostile)}`]);
    expect(stdout).toBe(hostile);
    expect(existsSync(marker)).toBe(false);
  });

  it('a whole curl command stays one request: body and header words come back unchanged', async () => {
    const command = curlCommand({
      url: `http://127.0.0.1:9/mcp?x='$(touch ${marker})'`,
      message: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'echo', arguments: { message: hostile } },
      },
      sentHeaders: { 'content-type': 'application/json', 'x-note': hostile.replace(/\n/g, ' ') },
      personHeaders: {},
      connectionUrl: 'http://127.0.0.1:9/mcp',
      sameConnection: true,
      includeSecrets: false,
    });
    // `curl` replaced by a function that prints its arguments one per line, NUL-separated.
    const { stdout } = await run('sh', ['-c', `curl() { printf '%s\\0' "$@"; }\n${command}`]);
    const words = stdout.split('\0').slice(0, -1);
    expect(words).toContain(`x-note: ${hostile.replace(/\n/g, ' ')}`);
    expect(JSON.parse(words.at(-1)!)).toMatchObject({ params: { arguments: { message: hostile } } });
    expect(words[3]).toBe(`http://127.0.0.1:9/mcp?x='$(touch ${marker})'`);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('curl command', () => {
  const message = { jsonrpc: '2.0', id: 3, method: 'tools/list' };
  const sentHeaders = {
    accept: 'application/json, text/event-stream',
    authorization: '[redacted]',
    'content-type': 'application/json',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/list',
    'x-team': 'blue',
    'x-api-key': '[redacted]',
  };
  const personHeaders = { Authorization: 'Bearer s3cret', 'X-Api-Key': 'k-123', 'X-Team': 'blue' };

  it('redacts secrets unless asked, and keeps the protocol and the person’s headers', () => {
    const redacted = curlCommand({
      url: 'http://r/mcp',
      message,
      sentHeaders,
      personHeaders,
      connectionUrl: 'http://r/mcp',
      sameConnection: true,
      includeSecrets: false,
    });
    expect(redacted).not.toContain('s3cret');
    expect(redacted).not.toContain('k-123');
    expect(redacted).toContain(`-H 'authorization: [redacted]'`);
    expect(redacted).toContain(`-H 'mcp-protocol-version: 2026-07-28'`);
    expect(redacted).toContain(`-H 'mcp-method: tools/list'`);
    expect(redacted).toContain(`-H 'x-team: blue'`);
    expect(redacted.indexOf('content-type')).toBeLessThan(redacted.indexOf('x-team'));
    const withSecrets = curlCommand({
      url: 'http://r/mcp',
      message,
      sentHeaders,
      personHeaders,
      connectionUrl: 'http://r/mcp',
      sameConnection: true,
      includeSecrets: true,
    });
    expect(withSecrets).toContain(`-H 'authorization: Bearer s3cret'`);
    expect(withSecrets).toContain(`-H 'x-api-key: k-123'`);
  });

  it('keeps secrets redacted for a row sent elsewhere or seen on another connection, and says why', () => {
    const foreign = {
      url: 'http://other.example:8080/mcp',
      message,
      sentHeaders,
      personHeaders,
      connectionUrl: 'http://r/mcp',
      sameConnection: true,
      includeSecrets: true,
    };
    const command = curlCommand(foreign);
    expect(command).not.toContain('s3cret');
    expect(command).not.toContain('k-123');
    expect(command).toContain(`-H 'authorization: [redacted]'`);
    expect(secretsWithheld(foreign)).toContain('http://other.example:8080');
    const earlier = { ...foreign, url: 'http://r/other-path', sameConnection: false };
    expect(curlCommand(earlier)).not.toContain('s3cret');
    expect(secretsWithheld(earlier)).toContain('earlier connection');
    // Same origin, other path, current connection: the secrets were typed for this receiver.
    const same = { ...earlier, sameConnection: true };
    expect(secretsWithheld(same)).toBeUndefined();
    expect(curlCommand(same)).toContain(`-H 'authorization: Bearer s3cret'`);
  });

  it('without a recorded exchange, builds the headers the connection sends', () => {
    const command = curlCommand({
      url: 'http://r/mcp',
      message,
      personHeaders,
      connectionUrl: 'http://r/mcp',
      sameConnection: true,
      sessionId: 'sess-1',
      protocolVersion: '2025-11-25',
      includeSecrets: false,
    });
    expect(command).toContain(`-H 'Mcp-Session-Id: sess-1'`);
    expect(command).toContain(`-H 'MCP-Protocol-Version: 2025-11-25'`);
    expect(command).toContain(`-H 'Accept: application/json, text/event-stream'`);
    expect(command).toContain(`-H 'Authorization: [redacted]'`);
    expect(command).toContain(`--data-raw '{"jsonrpc":"2.0","id":3,"method":"tools/list"}'`);
  });
});
