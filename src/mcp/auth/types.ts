/** One HTTP exchange of the flow, as the steps view shows it: secrets already redacted. */
export interface AuthExchange {
  method: string;
  url: string;
  status?: number;
  requestBody?: string;
  responseBody?: string;
  /** Why no answer came (network, CORS, deadline). */
  error?: string;
  startedAt: number;
  ms: number;
}

export type AuthStepKind =
  | 'challenge'
  | 'resource-metadata'
  | 'server-metadata'
  | 'client'
  | 'authorization'
  | 'callback'
  | 'token'
  | 'refresh'
  | 'step-up'
  | 'sign-out';

/** One step of the authorization flow as it happened, with why it failed and what the spec wanted. */
export interface AuthStep {
  seq: number;
  kind: AuthStepKind;
  at: number;
  ok: boolean;
  /** What happened, in plain words. */
  summary: string;
  /** Why the step failed, when it did. */
  why?: string;
  /** The rule it answers to ("RFC 9728 §3.3"). */
  spec?: string;
  exchanges: AuthExchange[];
}

export type AuthStatus =
  'none' | 'confirm-origin' | 'sign-in-needed' | 'signing-in' | 'signed-in' | 'step-up-needed' | 'failed';

export type ClientKind = 'pre-registered' | 'metadata-document' | 'dynamic';

/** What the page shows of a connection's authorization: never a token, a code or a verifier. */
export interface AuthView {
  status: AuthStatus;
  /** An origin the flow waits to contact until the person allows it (status confirm-origin). */
  confirmOrigin?: string;
  /** Where the person signs in (it carries state and the PKCE challenge, no secret). */
  authorizationUrl?: string;
  state?: string;
  issuer?: string;
  clientId?: string;
  clientKind?: ClientKind;
  /** Scopes the token was granted (or asked for, before a token). */
  scopes?: string[];
  expiresAt?: number;
  canRefresh?: boolean;
  /** Why the last attempt failed, in plain words with its spec reference. */
  error?: string;
  /** The failure can be got past only with a client identity the person enters (no registration offered). */
  clientNeeded?: boolean;
  /** While a step-up waits (status step-up-needed): the scopes the refused request lacks, beyond the grant. */
  missingScopes?: string[];
  /** Every origin the flow contacted or is about to send the person to. */
  origins: string[];
  steps: AuthStep[];
}

/** What the person chose for the client's identity; nothing chosen means dynamic registration. */
export interface AuthClientChoice {
  /** A pre-registered client the person entered. */
  clientId?: string;
  clientSecret?: string;
  /** A Client ID Metadata Document's https URL, used where the server supports one. */
  clientMetadataUrl?: string;
}

/** The callback's query, handed over by the page: code or error, state, iss. */
export interface AuthCallback {
  state: string;
  code?: string;
  iss?: string;
  error?: string;
  errorDescription?: string;
}

/**
 * A sign-in kept across reloads, only when the person ticked "Remember sign-in": the tokens, and what they
 * were granted by (the authorization server's metadata, the client), so a refresh needs no discovery.
 */
export interface RememberedSignIn {
  version: 1;
  receiverUrl: string;
  issuer: string;
  grant: unknown;
}

/**
 * A sign-in waiting for its callback, kept in sessionStorage for one same-tab round trip only (the Worker with
 * the PKCE verifier ends with the navigation): state, verifier, the metadata found, the client. Never a token.
 */
export interface PendingSignIn {
  version: 1;
  receiverUrl: string;
  redirectUri: string;
  savedAt: number;
  pending: unknown;
  steps: unknown[];
}
