import { getEngine } from '../bridge/engine-bridge';
import type { Replies } from '../engine/messages';
import { useConnection } from '../state/connection-store';
import { parseJsonObject } from '../mcp';
import { useReplay } from '../state/replay-store';

/** A live receiver to send to: connected, and no trace playing (a replay has no receiver to ask). */
export function useLiveReceiver(): boolean {
  const connected = useConnection((s) => s.status === 'connected');
  const replaying = useReplay((s) => s.connectionId !== undefined);
  return connected && !replaying;
}

/** Params as the person typed them: a JSON object, or nothing at all. */
export function parseParams(
  text: string,
): { ok: true; params: Record<string, unknown> | undefined } | { ok: false; error: string } {
  const read = parseJsonObject(text, 'params must be a JSON object');
  return read.ok ? { ok: true, params: read.value } : read;
}

/** Sends the request again through the engine's current session; its answer shows in the traffic as well. */
export async function resendRequest(
  method: string,
  params: Record<string, unknown> | undefined,
): Promise<Replies['resend']> {
  try {
    return await getEngine().request({ type: 'resend', method, params });
  } catch (error) {
    return {
      ok: false,
      error: { kind: 'other', message: error instanceof Error ? error.message : String(error) },
    };
  }
}
