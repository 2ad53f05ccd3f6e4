/**
 * The passive report card: every rule of the receiver's generation judged from what the tracker and the traffic
 * tap already hold. Pure: the same input gives the same card, so the page can recompute it whenever it likes.
 */
import { redactUrl } from '../mcp';
import { buildContext, type Context, type Judgement, type ReportInput } from './evidence';
import type { ActiveCheckState, ReportCard, RuleId, RuleResult, Verdict } from './report-types';
import { rulesFor, strengthFor } from './catalogue';
import * as task from './task-rules';
import * as capability from './capability-rules';
import * as wire from './wire-rules';
import * as auth from './auth-rules';

export type { ReportInput } from './evidence';

const JUDGES: Record<RuleId, (ctx: Context) => Judgement> = {
  'poll-interval-present': task.pollIntervalPresent,
  'poll-interval-stable': task.pollIntervalStable,
  'ttl-present': task.ttlPresent,
  'ttl-not-purged-early': task.ttlNotPurgedEarly,
  'ttl-not-kept-beyond': task.ttlNotKeptBeyond,
  'status-transitions': task.statusTransitions,
  'created-at-fixed': task.createdAtFixed,
  'last-updated-monotonic': task.lastUpdatedMonotonic,
  'timestamps-not-future': task.timestampsNotFuture,
  'result-after-terminal': task.resultAfterTerminal,
  'result-related-meta': wire.resultRelatedMeta,
  'failed-result-explains': (ctx) => task.failedResultExplains(ctx, wire.failedErrorField(ctx)),
  'pushes-consistent': task.pushesConsistent,
  'pushes-sent': task.pushesSent,
  'unknown-task-error': wire.unknownTaskError,
  'capability-absent-error': capability.capabilityAbsentError,
  'undeclared-method-refused': capability.undeclaredMethodRefused,
  'rate-limit-retry-after': wire.rateLimitRetryAfter,
  'capability-tasks-list': capability.capabilityTasksList,
  'capability-tasks-cancel': capability.capabilityTasksCancel,
  'tool-task-support': capability.toolTaskSupport,
  'terminal-cancel-refused': wire.terminalCancelRefused,
  'task-only-for-tools-call': wire.taskOnlyForToolsCall,
  'requested-ttl-honoured': task.requestedTtlHonoured,
  'list-paging': capability.listPaging,
  'auth-challenge-names-metadata': auth.challengeNamesMetadata,
  'auth-resource-matches': auth.resourceMatches,
  'auth-s256-offered': auth.s256Offered,
  'auth-issuer-matches': auth.issuerMatches,
};
const AUTH_RULES: ReadonlySet<RuleId> = new Set(auth.AUTH_RULE_IDS);

const BROKEN: Record<'MUST' | 'SHOULD' | 'MAY', Verdict> = { MUST: 'fail', SHOULD: 'warn', MAY: 'info' };

function toResult(judgement: Judgement, verdictIfBroken: Verdict): RuleResult {
  const { id, observations, offences } = judgement;
  if (offences.length > 0) {
    const first = offences.reduce((a, b) => (b.when < a.when ? b : a));
    const { when: _when, ...firstOffence } = first;
    return {
      id,
      verdict: verdictIfBroken,
      observations: Math.max(observations, offences.length),
      reason: judgement.brokenReason(offences.length),
      firstOffence,
      source: 'passive',
    };
  }
  if (observations === 0)
    return {
      id,
      verdict: 'unobserved',
      observations: 0,
      reason: judgement.unobservedReason ?? 'Nothing seen yet that this rule could be judged on.',
      source: 'passive',
    };
  return { id, verdict: 'pass', observations, reason: judgement.passReason, source: 'passive' };
}

/** The card for one receiver: only the rules of its generation, in catalogue order. */
export function evaluateReport(input: ReportInput): ReportCard {
  const ctx = buildContext(input);
  const rules: RuleResult[] = [];
  for (const def of rulesFor(ctx.era)) {
    // A receiver that never asked for a sign-in is not judged on authorization.
    if (AUTH_RULES.has(def.id) && !input.auth) continue;
    let judgement: Judgement;
    try {
      judgement = JUDGES[def.id](ctx);
    } catch (error) {
      // A receiver's odd data must never take the whole card down: this one rule says it could not judge.
      rules.push({
        id: def.id,
        verdict: 'unobserved',
        observations: 0,
        reason: `Could not be judged: ${String(error).slice(0, 200)}`,
        source: 'passive',
      });
      continue;
    }
    rules.push(toResult(judgement, BROKEN[strengthFor(def, ctx.era)]));
  }
  return {
    receiver: {
      // The card is exported to public issue trackers: no credentials in the URL it names.
      url: redactUrl(input.receiver.url),
      era: ctx.era,
      ...(input.receiver.server?.name ? { name: input.receiver.server.name } : {}),
      ...(input.receiver.server?.version ? { version: input.receiver.server.version } : {}),
    },
    generatedAt: input.now,
    rules,
    counts: countVerdicts(rules),
  };
}

/**
 * The passive verdicts with the active check's findings over them: for the same rule, an active finding
 * outranks a passive one (unless it could judge nothing). Rules only the check found are added at the end.
 */
export function mergeFindings(
  passive: readonly RuleResult[],
  activeFindings: readonly RuleResult[],
): RuleResult[] {
  const active = new Map<RuleId, RuleResult>();
  for (const finding of activeFindings)
    if (finding.verdict !== 'unobserved' || !active.has(finding.id)) active.set(finding.id, finding);
  const merged = passive.map((p) => {
    const a = active.get(p.id);
    active.delete(p.id);
    return a && (a.verdict !== 'unobserved' || p.verdict === 'unobserved') ? a : p;
  });
  return [...merged, ...active.values()];
}

/** Only fail and warn are problems; among the rest the more direct evidence (the check's) is the better. */
const PROBLEM: Record<Verdict, number> = { fail: 2, warn: 1, info: 0, pass: 0, unobserved: 0 };

/**
 * The card's verdicts: the check's findings over the passive ones, except that a problem the tracker saw
 * stands against a check that happened not to meet it (a passive fail is evidence; an active pass on other
 * tasks does not take it back).
 */
export function judgeTogether(
  passive: readonly RuleResult[],
  activeFindings: readonly RuleResult[],
): RuleResult[] {
  const passiveById = new Map(passive.map((p) => [p.id, p]));
  return mergeFindings(passive, activeFindings).map((r) => {
    const p = passiveById.get(r.id);
    return p && PROBLEM[p.verdict] > PROBLEM[r.verdict] ? p : r;
  });
}

export function countVerdicts(rules: readonly RuleResult[]): Record<Verdict, number> {
  const counts: Record<Verdict, number> = { pass: 0, fail: 0, warn: 0, info: 0, unobserved: 0 };
  for (const r of rules) counts[r.verdict]++;
  return counts;
}

/** The card the page and `taskscope check` show: the passive card with the active check's findings judged in. */
export function withActiveCheck(passive: ReportCard, check: ActiveCheckState | undefined): ReportCard {
  if (!check) return passive;
  const rules = judgeTogether(passive.rules, check.findings);
  return { ...passive, rules, counts: countVerdicts(rules), active: check };
}
