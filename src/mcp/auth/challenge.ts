import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Challenge } from './discovery';

/** The Bearer challenge of a 401 or 403, when the response carries one. */
export function readChallenge(response: Response): Challenge | undefined {
  if (!/^\s*bearer\b/i.test(response.headers.get('www-authenticate') ?? '')) return undefined;
  const params = extractWWWAuthenticateParams(response);
  return {
    resourceMetadataUrl: params.resourceMetadataUrl?.href,
    scope: params.scope,
    error: params.error,
  };
}
