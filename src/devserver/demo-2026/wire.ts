/** The 2026-07-28 wire facts the demo endpoint needs outside the SDK: before dispatch, and on its own SSE. */
import type { Request } from 'express';
import { decodeHeaderValue } from '../../mcp/header-values.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  classifyInboundRequest,
  type InboundClassificationOutcome,
} from '@modelcontextprotocol/server';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const PROTOCOL_2026 = '2026-07-28';
export const SUBSCRIPTION_ID_KEY = 'io.modelcontextprotocol/subscriptionId';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The extension counts only when this very request declares it ("regardless of prior declarations"). */
export function declaresTasksExtension(envelope: unknown): boolean {
  if (!isRecord(envelope)) return false;
  const capabilities = envelope[CLIENT_CAPABILITIES_META_KEY];
  const extensions = isRecord(capabilities) ? capabilities.extensions : undefined;
  return isRecord(extensions) && Object.hasOwn(extensions, TASKS_EXTENSION);
}

export const MISSING_TASKS_EXTENSION = {
  code: -32021,
  message: 'Missing required client capability',
  data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
} as const;

export interface JsonRpcRequestBody {
  id: string | number;
  method: string;
  params: Record<string, unknown>;
}

/** A JSON-RPC request body with an id and params, or undefined: anything else is the SDK's to refuse. */
export function requestBody(body: unknown): JsonRpcRequestBody | undefined {
  if (!isRecord(body) || typeof body.method !== 'string') return undefined;
  if (typeof body.id !== 'string' && typeof body.id !== 'number') return undefined;
  return { id: body.id, method: body.method, params: isRecord(body.params) ? body.params : {} };
}

export const envelopeOf = (params: Record<string, unknown>): Record<string, unknown> =>
  isRecord(params._meta) ? params._meta : {};

/** The body claims 2026-07-28: the SDK routes it to the modern path (else to legacy serving or -32022). */
export const claimsModern = (params: Record<string, unknown>) =>
  typeof envelopeOf(params)[PROTOCOL_VERSION_META_KEY] === 'string';

/**
 * The SDK's own ladder (headers against body, envelope, known versions), so that a request we answer
 * ourselves is refused exactly as one the SDK answers would be.
 */
export function classify(req: Request): InboundClassificationOutcome {
  return classifyInboundRequest({
    httpMethod: req.method,
    protocolVersionHeader: req.header('mcp-protocol-version'),
    mcpMethodHeader: req.header('mcp-method'),
    mcpNameHeader: req.header('mcp-name'),
    body: req.body as unknown,
  });
}

const HEADER_MISMATCH = -32020;

/**
 * The header checks server 2.4 makes after classifying a request as modern (its validateStandardRequestHeaders,
 * not exported), with its messages, for requests answered before it sees them.
 */
export function headerMismatch(req: Request, request: JsonRpcRequestBody) {
  const fail = (header: string, body: string) => ({
    code: HEADER_MISMATCH,
    message: `Bad Request: the request headers and body disagree: ${body}`,
    data: { mismatch: { header, body } },
  });
  const version = String(envelopeOf(request.params)[PROTOCOL_VERSION_META_KEY]);
  if (req.header('mcp-protocol-version') === undefined) {
    return fail(
      '(missing)',
      `the body envelope names protocol version ${version} but the required MCP-Protocol-Version header is absent`,
    );
  }
  if (req.header('mcp-method') === undefined) {
    return fail(
      '(missing)',
      `the body names method ${request.method} but the required Mcp-Method header is absent`,
    );
  }
  const name = request.params.name;
  if (request.method !== 'tools/call' || typeof name !== 'string') return undefined;
  const header = req.header('mcp-name')?.trim();
  if (header === undefined) {
    return fail(
      '(missing)',
      `the body carries params.name="${name}" but the required Mcp-Name header is absent`,
    );
  }
  const decoded = decodeHeaderValue(header) ?? header;
  if (decoded !== name) {
    return fail(header, `the body carries params.name="${name}" but the Mcp-Name header names "${decoded}"`);
  }
  return undefined;
}

export const jsonRpcError = (
  id: string | number | null,
  error: { code: number; message: string; data?: unknown },
) => ({
  jsonrpc: '2.0' as const,
  id,
  error,
});
