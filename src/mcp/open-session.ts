import { classifyError } from './classify';
import { HeadersRefusedByCors, HttpStatusError } from './errors';
import { PROTOCOL_2026, UNSUPPORTED_VERSION_CODE } from './protocol-rules';
import { McpSession } from './session';
import type { ConnectOptions } from './session-types';
import { RpcError, Session2026, asRpcError, listedVersions } from './session-2026';
import type { ReceiverSession } from './session-types';
import type { Era } from './types';

/** Which generation to speak: found out per receiver (auto), or forced by the person. */
export type EraChoice = 'auto' | Era;

/** How the generation was settled, for the receiver card. */
export type Detection = 'discover' | 'initialize' | 'forced' | 'resumed';

export interface OpenedSession {
  session: ReceiverSession;
  detectedBy: Detection;
}

/** A 2026-07-28 receiver's own refusal of our request (headers, envelope, capabilities): ours to fix, never a cue to fall back. */
function isRefusalOf2026(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (code === -32020 || code === -32021) return true;
  return code === -32602 && /_meta envelope|envelope key/i.test(String((error as Error).message));
}

/** 401 or 403 (a JSON-RPC body or not): a reason to sign in and ask server/discover again, never to change protocol. */
export function isAuthRefusal(error: unknown): boolean {
  const status =
    error instanceof HttpStatusError
      ? error.status
      : error instanceof RpcError
        ? error.httpStatus
        : undefined;
  return status === 401 || status === 403;
}

/**
 * Whether server/discover's failure shows a 2026-07-28-era server (2026-07-28: fall back to initialize only on
 * an answer that does not): its own refusal of our request, a sign-in wall, or a version error that lists a
 * modern version. A list of older versions only is a 2025 server's answer, and initialize is how to speak them.
 */
function showsModernServer(error: unknown): boolean {
  if (isRefusalOf2026(error) || isAuthRefusal(error)) return true;
  return listedVersions(error)?.some((v) => v >= PROTOCOL_2026) ?? false;
}

/**
 * Opens a session in the generation the receiver speaks. Auto asks server/discover first: one request for a
 * 2026-07-28 receiver (strict or dual-era, which then speaks 2026 with us, where its tasks are); anything a
 * 2025-11-25 receiver answers to it (a 400, 404, -32601, a refused preflight) means initialize. A resumed
 * session is a 2025-11-25 one by nature (2026-07-28 has none).
 */
export async function openSession(options: ConnectOptions & { era?: EraChoice }): Promise<OpenedSession> {
  const era = options.era ?? 'auto';
  if (options.resume) return { session: await McpSession.connect(options), detectedBy: 'resumed' };
  if (era === '2025-11-25') {
    try {
      return { session: await McpSession.connect(options), detectedBy: 'forced' };
    } catch (error) {
      throw explainForced2025(error);
    }
  }
  if (era === '2026-07-28') {
    try {
      return { session: await Session2026.connect(options), detectedBy: 'forced' };
    } catch (error) {
      throw explainForced2026(error);
    }
  }
  let discoverFailure: unknown;
  try {
    return { session: await Session2026.connect(options), detectedBy: 'discover' };
  } catch (error) {
    // A receiver that wants a sign-in says so to any request: initialize would get the same 401. One that
    // lists modern versions was asked again already (Session2026.connect) and counts initialize as a fault.
    if (showsModernServer(error)) throw explainVersionRefusal(error);
    discoverFailure = error;
  }
  try {
    return { session: await McpSession.connect(options), detectedBy: 'initialize' };
  } catch (error) {
    // initialize says 2026-07-28, yet server/discover never got through: a preflight refused its headers.
    const versions = listedVersions(asRpcError(error));
    if (versions?.includes(PROTOCOL_2026) && discoverFailure instanceof TypeError)
      throw new HeadersRefusedByCors(
        `The receiver at ${options.url} speaks only 2026-07-28, but its CORS does not allow the headers that protocol needs (Mcp-Method, Mcp-Name, MCP-Protocol-Version): allow them there, or connect through Taskscope's local relay.`,
      );
    throw error;
  }
}

/** A -32022 that lists modern versions, said for the person: which ones, and why there is no fallback. */
function explainVersionRefusal(error: unknown): unknown {
  const versions = listedVersions(error);
  if (!versions?.length || isAuthRefusal(error)) return error;
  const listed = versions.join(', ');
  return new RpcError(
    UNSUPPORTED_VERSION_CODE,
    versions.includes(PROTOCOL_2026)
      ? `The receiver refused server/discover twice with "unsupported protocol version" (-32022) while listing ${PROTOCOL_2026} (${listed}), the version Taskscope offered both times.`
      : `The receiver lists ${listed} for server/discover, not ${PROTOCOL_2026}, the newest version Taskscope speaks; a server of this era counts an initialize as a fault, so there is no fallback to 2025-11-25.`,
    { supported: versions, requested: PROTOCOL_2026 },
  );
}

function explainForced2025(error: unknown): unknown {
  const versions = listedVersions(asRpcError(error));
  if (!versions?.includes(PROTOCOL_2026)) return error;
  return new RpcError(
    UNSUPPORTED_VERSION_CODE,
    `This receiver speaks only ${versions.join(', ')}, and 2025-11-25 was chosen: set the protocol to auto or 2026-07-28.`,
  );
}

function explainForced2026(error: unknown): unknown {
  if (isRefusalOf2026(error)) return error;
  if (listedVersions(error)?.some((v) => v >= PROTOCOL_2026)) return explainVersionRefusal(error);
  // The receiver answered (whatever it said): it is there and not speaking 2026-07-28. Otherwise it may be away.
  const answered = error instanceof RpcError || error instanceof HttpStatusError;
  const kind = classifyError(error, { method: 'server/discover' }).kind;
  if (!answered && (kind === 'cors-or-network' || kind === 'timeout')) return error;
  return new RpcError(
    UNSUPPORTED_VERSION_CODE,
    'This receiver does not speak 2026-07-28 (server/discover was refused), and 2026-07-28 was chosen: set the protocol to auto or 2025-11-25.',
  );
}
