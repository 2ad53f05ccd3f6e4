import { AuthFailure } from './discovery';
import type { Pending } from './grant';
import type { AuthCallback } from './types';

/**
 * What a callback must carry before its code is spent: no error, the issuer it was sent to (RFC 9207: checked
 * whenever the callback names one, required when the metadata promises one), and a code. Throws AuthFailure
 * with the rule broken; the state was matched by the caller.
 */
export function checkCallback(callback: AuthCallback, pending: Pending): string {
  const metadata = pending.discovered.metadata as
    { issuer?: string; authorization_response_iss_parameter_supported?: unknown } | undefined;
  const issuer = metadata?.issuer;
  if (callback.error)
    throw new AuthFailure(
      `The authorization server answered ${callback.error}${callback.errorDescription ? `: ${callback.errorDescription}` : ''}`,
      'OAuth 2.1 §4.1.2.1',
    );
  if (callback.iss !== undefined && issuer !== undefined && callback.iss !== issuer)
    throw new AuthFailure(`The callback's iss ${callback.iss} is not the issuer ${issuer}`, 'RFC 9207 §2.4');
  if (callback.iss === undefined && metadata?.authorization_response_iss_parameter_supported === true)
    throw new AuthFailure('The callback carries no iss though the metadata promises one', 'RFC 9207 §2.4');
  if (!callback.code) throw new AuthFailure('The callback carries no code', 'OAuth 2.1 §4.1.2');
  return callback.code;
}
