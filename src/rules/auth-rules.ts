/**
 * The authorization rules the report card can see passively: from the steps of the sign-in Taskscope made
 * (mcp/auth), never from probes of its own. They apply only to a receiver that asked for a sign-in.
 */
import type { AuthStep } from '../mcp';
import { offence, type Context, type Found, type Judgement } from './evidence';
import { count } from './words';

export const AUTH_RULE_IDS = [
  'auth-challenge-names-metadata',
  'auth-resource-matches',
  'auth-s256-offered',
  'auth-issuer-matches',
] as const;

const steps = (ctx: Context): AuthStep[] => ctx.input.auth?.steps ?? [];

function judge(
  ctx: Context,
  id: Judgement['id'],
  looked: (s: AuthStep) => boolean,
  broken: (s: AuthStep) => boolean,
  words: { pass: string; broken: string; unobserved: string },
): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const step of steps(ctx)) {
    if (!looked(step)) continue;
    n++;
    if (broken(step))
      offences.push(offence(undefined, step.at, `${step.why ?? step.summary} — ${step.spec ?? ''}`));
  }
  return {
    id,
    observations: n,
    offences,
    passReason: words.pass.replace('{n}', String(n)),
    brokenReason: (k) => `${k} of ${n} ${words.broken}`,
    unobservedReason: words.unobserved,
  };
}

const failedWith = (spec: string) => (s: AuthStep) => !s.ok && (s.spec ?? '').includes(spec);

export const challengeNamesMetadata = (ctx: Context) =>
  judge(
    ctx,
    'auth-challenge-names-metadata',
    (s) => s.kind === 'challenge',
    (s) => (s.why ?? '').includes('names no resource_metadata'),
    {
      pass: `${count(steps(ctx).filter((s) => s.kind === 'challenge').length, 'challenge')}, each naming its resource metadata.`,
      broken: 'challenges named no resource_metadata: clients had to guess the well-known URLs.',
      unobserved: 'No 401 or 403 challenge seen.',
    },
  );

export const resourceMatches = (ctx: Context) =>
  judge(
    ctx,
    'auth-resource-matches',
    (s) => s.kind === 'resource-metadata' && (s.ok || failedWith('RFC 9728 §3.3')(s)),
    failedWith('RFC 9728 §3.3'),
    {
      pass: 'The protected resource metadata names this receiver.',
      broken: 'protected resource metadata documents named another resource.',
      unobserved: 'No protected resource metadata read.',
    },
  );

export const s256Offered = (ctx: Context) =>
  judge(
    ctx,
    'auth-s256-offered',
    (s) => s.kind === 'server-metadata' && (s.ok || failedWith('PKCE')(s)),
    failedWith('PKCE'),
    {
      pass: "The authorization server's metadata offers PKCE S256.",
      broken: 'authorization server metadata documents did not offer PKCE S256.',
      unobserved: 'No authorization server metadata read.',
    },
  );

export const issuerMatches = (ctx: Context) =>
  judge(
    ctx,
    'auth-issuer-matches',
    (s) => (s.kind === 'server-metadata' && s.ok) || s.kind === 'callback' || failedWith('RFC 8414 §3.3')(s),
    (s) => failedWith('RFC 8414 §3.3')(s) || failedWith('RFC 9207')(s),
    {
      pass: 'The issuer matched in the metadata and in every callback that named one.',
      broken: 'issuers did not match (metadata or callback).',
      unobserved: 'No authorization server metadata or callback seen.',
    },
  );
