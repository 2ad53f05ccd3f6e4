import { describe, expect, it } from 'vitest';
import { evaluateReport, type ReportInput } from './evaluate';
import type { AuthStep, AuthView } from '../mcp';

const step = (kind: AuthStep['kind'], ok: boolean, extra: Partial<AuthStep> = {}): AuthStep => ({
  seq: 1,
  kind,
  at: 1000,
  ok,
  summary: kind,
  exchanges: [],
  ...extra,
});

function input(auth?: AuthView): ReportInput {
  return {
    receiver: { url: 'http://127.0.0.1:1/mcp', era: '2025-11-25' },
    support: { list: false, cancel: false, toolCall: false },
    tools: [],
    tasks: [],
    results: new Map(),
    traffic: [],
    clockOffsetMs: 0,
    clockSamples: 0,
    auth,
    now: 2000,
  };
}

const view = (steps: AuthStep[]): AuthView => ({ status: 'failed', origins: [], steps });
const verdicts = (auth?: AuthView) =>
  Object.fromEntries(
    evaluateReport(input(auth))
      .rules.filter((r) => r.id.startsWith('auth-'))
      .map((r) => [r.id, r.verdict]),
  );

describe('the authorization rules', () => {
  it('are left off the card of a receiver that never asked for a sign-in', () => {
    expect(verdicts(undefined)).toEqual({});
  });

  it('pass on a clean sign-in', () => {
    expect(
      verdicts(
        view([
          step('challenge', true, { spec: 'RFC 9728 §5.1' }),
          step('resource-metadata', true),
          step('server-metadata', true),
          step('callback', true),
        ]),
      ),
    ).toEqual({
      'auth-challenge-names-metadata': 'pass',
      'auth-resource-matches': 'pass',
      'auth-s256-offered': 'pass',
      'auth-issuer-matches': 'pass',
    });
  });

  it('fail with the step that broke them, and warn on a challenge without resource_metadata', () => {
    const card = evaluateReport(
      input(
        view([
          step('challenge', true, {
            why: 'The challenge names no resource_metadata: the well-known URLs are tried',
          }),
          step('resource-metadata', false, { why: 'resource mismatch', spec: 'RFC 9728 §3.3' }),
        ]),
      ),
    );
    const byId = new Map(card.rules.map((r) => [r.id, r]));
    expect(byId.get('auth-challenge-names-metadata')?.verdict).toBe('warn');
    expect(byId.get('auth-resource-matches')?.verdict).toBe('fail');
    expect(byId.get('auth-resource-matches')?.firstOffence?.detail).toBe('resource mismatch — RFC 9728 §3.3');
    expect(byId.get('auth-s256-offered')?.verdict).toBe('unobserved');
    expect(
      verdicts(
        view([
          step('server-metadata', false, {
            why: 'no S256',
            spec: 'MCP authorization, Authorization Code Protection (PKCE)',
          }),
        ]),
      )['auth-s256-offered'],
    ).toBe('fail');
    expect(
      verdicts(view([step('callback', false, { why: 'iss', spec: 'RFC 9207 §2.4' })]))['auth-issuer-matches'],
    ).toBe('fail');
  });
});
