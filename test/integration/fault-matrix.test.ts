import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main, type CommandOptions } from '../../src/cli/main';
import { FAULT_NAMES, FAULT_RULES, type FaultName } from '../../src/devserver/demo-faults/faults';
import { RULE_BY_ID, ruleDef, strengthFor } from '../../src/rules/catalogue';
import type { RuleId, Verdict } from '../../src/rules/report-types';
import { startDemoReceiver, type RunningReceiver } from '../helpers/receivers';
import { startDemoReceiver2026, type RunningReceiver2026 } from '../helpers/receiver-2026';
import { consent, startDemoAuth, type DemoAuthServer } from '../helpers/demo-auth';
import { AUTH_FAULTS, AUTH_FAULT_RULES, type AuthFault } from '../../src/devserver/demo-auth/faults';
import { AUTH_RULE_IDS } from '../../src/rules/auth-rules';
import { evaluateReport } from '../../src/rules/evaluate';
import { AuthClient } from '../../src/mcp/auth/auth-client';
import type { AuthView } from '../../src/mcp/auth/types';
import { openSession } from '../../src/mcp/open-session';

/**
 * The fault matrix: `taskscope check` against every fault the demo receiver offers (`?faults=`, served by the
 * faults case, src/devserver/demo-faults/), one run per fault, all side by side. Each fault must give its rule the
 * verdict the rule's strength sets (MUST → fail, SHOULD → warn, MAY → info), with its first offence, and leave
 * every other rule as the healthy receiver has it; the healthy receivers of both generations fail and warn on
 * nothing. A run that could not finish a step would exit 3, not 0 or 1.
 */

interface CheckJson {
  outcome: string;
  rules: Array<{ id: RuleId; verdict: Verdict; reason: string; firstOffence: { detail: string } | null }>;
}

/** The check's waits, shortened: what is judged is the same, seen sooner. */
const timing: CommandOptions = {
  checkTiming: { shortTtlMs: 500, expiryGraceMs: 300, blockProbeMs: 500, readAgainAfterMs: 1000 },
  checkSettleMs: 1500,
};

/** The faults case's job, long enough to be seen running between the check's steps. */
const JOB = { durationMs: 1500, pollInterval: 100 };
/** A fault seen only on what these arguments make: a failed task, a task polled several times. */
const ARGS: Partial<Record<FaultName, Record<string, unknown>>> = {
  'unexplained-failure': { ...JOB, outcome: 'failed' },
  // The lie is pushed half way through: the run is long enough for the check to read the task after it.
  'contradicting-push': { ...JOB, durationMs: 3000 },
};

/**
 * Rules a fault leaves with nothing to judge (unobserved where the healthy receiver passes): the evidence they
 * need is what the fault takes away. Any other change of verdict fails the matrix.
 */
const TAKES_AWAY: Partial<Record<FaultName, RuleId[]>> = {
  // No pollInterval: nothing to be stable.
  'no-poll-interval': ['poll-interval-stable'],
  // Tasks gone half way: none lives to give its result.
  'purge-early': ['result-related-meta'],
  // Nothing is ever purged: no purge to be early.
  'keep-beyond-ttl': ['ttl-not-purged-early'],
  // No push: none to agree with the polls.
  'no-pushes': ['pushes-consistent'],
  // tasks/list refused, or not declared: no page to follow.
  'list-refused': ['list-paging'],
  'undeclared-list-answered': ['list-paging'],
  // A purged task answers -32603, not -32602: no purge is recognised as one.
  'wrong-unknown-code': ['ttl-not-purged-early'],
  // tasks/cancel refused: no cancelled task, and no cancel of an ended one answered as such.
  'cancel-refused': ['terminal-cancel-refused'],
};

let folder: string;
let demo: RunningReceiver;
let demo2026: RunningReceiver2026;
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'taskscope-matrix-'));
  [demo, demo2026] = await Promise.all([startDemoReceiver(), startDemoReceiver2026()]);
  // Runs side by side share this process's stdout: each reads its own --json file, not what was printed.
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterAll(async () => {
  vi.restoreAllMocks();
  await Promise.all([demo?.close(), demo2026?.close()]);
  await rm(folder, { recursive: true, force: true });
});

async function check(name: string, argv: string[]): Promise<{ code: number; json: CheckJson }> {
  const file = path.join(folder, `${name}.json`);
  const code = await main(['check', ...argv, '--json', file], timing);
  return { code, json: JSON.parse(await readFile(file, 'utf8')) as CheckJson };
}

const expected = (rule: RuleId): Verdict => {
  const strength = strengthFor(ruleDef(rule), '2025-11-25');
  return strength === 'MUST' ? 'fail' : strength === 'SHOULD' ? 'warn' : 'info';
};
const problems = (json: CheckJson) =>
  json.rules.filter((r) => r.verdict === 'fail' || r.verdict === 'warn').map((r) => `${r.id}: ${r.reason}`);

const faultsUrl = (faults: string) => `${demo.url}?faults=${faults}`;
const jobArgs = (fault: FaultName) => ['--tool', 'job', '--args', JSON.stringify(ARGS[fault] ?? JOB)];

describe('the fault matrix: taskscope check on every fault the demo receivers offer', () => {
  let healthy: CheckJson;
  beforeAll(async () => {
    healthy = (await check('healthy', [faultsUrl(''), '--tool', 'job', '--args', JSON.stringify(JOB)])).json;
  });

  it('every fault names a rule of the catalogue', () => {
    for (const fault of FAULT_NAMES) expect(RULE_BY_ID.has(FAULT_RULES[fault] as RuleId), fault).toBe(true);
  });

  it('the faults case without faults, the demo and the 2026-07-28 demo: no fail, no warning', async () => {
    expect(problems(healthy)).toEqual([]);
    const [slow, dialect] = await Promise.all([
      check('demo', [demo.url, '--tool', 'slow_job', '--args', '{"durationMs":1500}']),
      check('demo-2026', [demo2026.url]),
    ]);
    expect(problems(slow.json)).toEqual([]);
    expect(slow.code).toBe(0);
    expect(problems(dialect.json)).toEqual([]);
    expect(dialect.code).toBe(0);
  });

  it.concurrent.for(FAULT_NAMES.map((fault) => ({ fault, rule: FAULT_RULES[fault] as RuleId })))(
    '$fault: $rule and nothing else',
    { timeout: 40_000 },
    async ({ fault, rule }, { expect }) => {
      const { code, json } = await check(fault, [faultsUrl(fault), ...jobArgs(fault)]);
      const verdict = expected(rule);
      const found = json.rules.find((r) => r.id === rule);
      expect(found?.verdict, found?.reason).toBe(verdict);
      // Its first offence, for the card's click-through.
      expect(found?.firstOffence?.detail).toBeTruthy();
      const before = new Map(healthy.rules.map((r) => [r.id, r.verdict]));
      const gone = new Set(TAKES_AWAY[fault]);
      const changed = json.rules
        .filter((r) => r.id !== rule && r.verdict !== before.get(r.id))
        .filter((r) => !(gone.has(r.id) && r.verdict === 'unobserved'))
        .map((r) => `${r.id}: ${before.get(r.id)} → ${r.verdict} (${r.reason})`);
      expect(changed).toEqual([]);
      expect(code).toBe(verdict === 'fail' ? 1 : 0);
    },
  );
});

/** The authorization rules as the card judges a sign-in's steps (no tasks, no traffic). */
function authVerdicts(view: AuthView): Map<RuleId, Verdict> {
  const card = evaluateReport({
    receiver: { url: 'http://127.0.0.1/demo/mcp-auth', era: '2025-11-25' },
    support: { list: true, cancel: true, toolCall: true },
    tools: [],
    tasks: [],
    results: new Map(),
    traffic: [],
    auth: view,
    clockOffsetMs: 0,
    clockSamples: 0,
    now: Date.now(),
  });
  return new Map(card.rules.filter((r) => AUTH_IDS.has(r.id)).map((r) => [r.id, r.verdict]));
}
const AUTH_IDS = new Set<RuleId>(AUTH_RULE_IDS);

/** Rules an auth fault leaves unjudged: the sign-in stops before what they look at. */
const AUTH_STOPS: Partial<Record<AuthFault, RuleId[]>> = {
  'resource-mismatch': ['auth-s256-offered', 'auth-issuer-matches'],
  'no-s256': ['auth-issuer-matches'],
};

describe("the fault matrix: the OAuth demo's faults, as far as each sign-in goes", () => {
  let server: DemoAuthServer;
  beforeAll(async () => {
    server = await startDemoAuth();
  });
  afterAll(async () => {
    await server?.close();
  });

  /** Signs in to the demo with these faults, allowing every step it asks about; the sign-in's last view. */
  async function signIn(faults: string): Promise<AuthView> {
    const url = faults ? `${server.receiverUrl}?faults=${faults}` : server.receiverUrl;
    const auth = new AuthClient({
      receiverUrl: url,
      redirectUri: 'http://127.0.0.1:5173/oauth/callback',
      fetch,
      choice:
        faults === 'basic-auth' ? { clientId: 'taskscope-demo', clientSecret: 'demo-secret' } : undefined,
    });
    const settled = new Promise<AuthView>((resolve) => {
      auth.onChange = (view) => {
        if (view.status === 'confirm-origin' && view.confirmOrigin)
          auth.confirmOrigin(view.confirmOrigin, true);
        if (view.status === 'sign-in-needed' || view.status === 'failed') resolve(view);
      };
    });
    await openSession({ url, fetch: auth.wrap(fetch) }).catch(() => undefined);
    const view = await settled;
    if (view.status === 'sign-in-needed') await auth.finish(await consent(view));
    return auth.view();
  }

  let healthy: Map<RuleId, Verdict>;
  beforeAll(async () => {
    healthy = authVerdicts(await signIn(''));
  });

  it('without faults: every authorization rule passes', () => {
    expect([...healthy.values()]).toEqual(AUTH_RULE_IDS.map(() => 'pass'));
  });

  it.concurrent.for(AUTH_FAULTS.map((fault) => ({ fault, rule: AUTH_FAULT_RULES[fault] as RuleId | null })))(
    '$fault: $rule and nothing else',
    async ({ fault, rule }, { expect }) => {
      const verdicts = authVerdicts(await signIn(fault));
      if (rule) expect(verdicts.get(rule)).toBe(expected(rule));
      const stops = new Set(AUTH_STOPS[fault]);
      const changed = [...verdicts]
        .filter(([id, v]) => id !== rule && v !== healthy.get(id) && !(stops.has(id) && v === 'unobserved'))
        .map(([id, v]) => `${id}: ${healthy.get(id)} → ${v}`);
      expect(changed).toEqual([]);
    },
  );
});
