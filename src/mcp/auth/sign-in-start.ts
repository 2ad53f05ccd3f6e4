import { startAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/sdk/shared/auth.js';
import { discover, type Challenge, type Discovered } from './discovery';
import { randomState, type Pending } from './grant';
import type { StepLog } from './step-log';
import type { AuthStepKind } from './types';

export interface SignInStartOptions {
  receiverUrl: string;
  redirectUri: string;
  challenge: Challenge;
  /** A step-up's scope already granted: the new request asks for the union (the spec's step-up). */
  grantedScope?: string;
  stepUp: boolean;
  fetchFn: typeof fetch;
  log: StepLog;
  clientFor: (discovered: Discovered) => Promise<OAuthClientInformationMixed>;
  /** The step under way, read by the caller when this throws (the failed step is named for it). */
  progress: { phase: AuthStepKind };
}

/**
 * From a 401's (or 403's) challenge to an authorization URL: discovery, the client, PKCE and state, each step
 * written to the log. The URL then waits for the person's click (a popup needs one).
 */
export async function startSignIn(at: SignInStartOptions): Promise<Pending & { authorizationUrl: URL }> {
  const { challenge, log, progress } = at;
  log.add(
    'challenge',
    true,
    `${at.stepUp ? 'HTTP 403' : 'HTTP 401'}: ${challenge.error ?? 'no error code'}; resource_metadata ${challenge.resourceMetadataUrl ?? 'not named'}; scope ${challenge.scope ?? 'not named'}`,
    challenge.resourceMetadataUrl
      ? { spec: 'RFC 9728 §5.1' }
      : {
          why: 'The challenge names no resource_metadata: the well-known URLs are tried',
          spec: 'RFC 9728 §5.1',
        },
  );
  progress.phase = 'resource-metadata';
  const discovered = await discover(at.receiverUrl, challenge, at.fetchFn, (ok, kind, summary, spec) => {
    progress.phase = kind === 'resource-metadata' ? 'server-metadata' : 'client';
    log.add(kind, ok, summary, { spec });
  });
  if (at.grantedScope) {
    const union = new Set(
      [...at.grantedScope.split(' '), ...(discovered.scope ?? '').split(' ')].filter(Boolean),
    );
    discovered.scope = [...union].join(' ');
  }
  progress.phase = 'client';
  const client = await at.clientFor(discovered);
  progress.phase = 'authorization';
  const state = randomState();
  const { authorizationUrl, codeVerifier } = await startAuthorization(discovered.authorizationServerUrl, {
    metadata: discovered.metadata,
    clientInformation: client,
    redirectUrl: at.redirectUri,
    scope: discovered.scope,
    state,
    resource: discovered.resource,
  });
  log.add(
    'authorization',
    true,
    `Ready: sign in at ${authorizationUrl.origin} for ${discovered.scope ?? 'the default scope'} (PKCE S256, state, resource ${discovered.resource})`,
    { spec: 'OAuth 2.1 §4.1.1, RFC 8707' },
  );
  return { state, codeVerifier, discovered, client, authorizationUrl };
}
