/**
 * The client's card: every client rule of the session's generation judged on what passed between the client and
 * its server. Pure: the same messages give the same card.
 */
import type { Era } from '../mcp';
import { clientRulesFor, clientStrength, type ClientRuleId } from './client-catalogue';
import { readClientSession, type ClientSession, type SeenMessage } from './client-evidence';
import * as rules from './client-rules';
import * as wire from './client-wire-rules';
import type { ClientJudgement } from './client-judgement';
import type { Found } from './evidence';
import type { Offence, Verdict } from './report-types';

export interface ClientRuleResult {
  id: ClientRuleId;
  side: 'client';
  verdict: Verdict;
  observations: number;
  reason: string;
  firstOffence?: Offence;
  /** Each task's first offence, for the task's own view (at most MAX_TASK_OFFENCES tasks). */
  byTask?: Offence[];
}

const MAX_TASK_OFFENCES = 200;

function firstPerTask(offences: readonly Found[]): Offence[] {
  const first = new Map<string, Found>();
  for (const o of offences)
    if (o.taskId !== undefined && first.size < MAX_TASK_OFFENCES) {
      const known = first.get(o.taskId);
      if (!known || o.when < known.when) first.set(o.taskId, o);
    }
  return [...first.values()].map(({ when: _when, ...offence }) => offence);
}

export interface ClientCard {
  era: Era;
  /** The receiver answers in the user documents' shapes: some rules are stricter (client-catalogue.ts). */
  documentsFlavour: boolean;
  rules: ClientRuleResult[];
  counts: Record<Verdict, number>;
}

const JUDGES: Record<ClientRuleId, (s: ClientSession) => ClientJudgement> = {
  'client-poll-cadence': rules.pollCadence,
  'client-stops-at-terminal': rules.stopsAtTerminal,
  'client-discards-unknown-task': rules.discardsUnknownTask,
  'client-result-after-terminal': rules.resultAfterTerminal,
  'client-retry-after': rules.retryAfter,
  'client-result-fetched': rules.resultFetched,
  'client-result-promptly': rules.resultPromptly,
  'client-capability-respected': wire.capabilityRespected,
  'client-tool-task-support': wire.toolTaskSupport,
  'client-extension-declared': wire.extensionDeclared,
  'client-input-required-result': rules.inputRequiredResult,
  'client-mcp-name': wire.mcpName,
  'client-mcp-method': wire.mcpMethod,
  'client-protocol-version': wire.protocolVersion,
  'client-no-2025-task-methods': wire.no2025TaskMethods,
  'client-task-param-ignored': wire.taskParamIgnored,
  'client-input-answered-once': wire.inputAnsweredOnce,
};

const BROKEN: Record<'MUST' | 'SHOULD' | 'MAY', Verdict> = { MUST: 'fail', SHOULD: 'warn', MAY: 'info' };

function toResult(j: ClientJudgement, verdictIfBroken: Verdict): ClientRuleResult {
  const base = { id: j.id, side: 'client' as const };
  if (j.offences.length > 0) {
    const first = j.offences.reduce((a, b) => (b.when < a.when ? b : a));
    const { when: _when, ...firstOffence } = first;
    return {
      ...base,
      verdict: verdictIfBroken,
      observations: Math.max(j.observations, j.offences.length),
      reason: j.brokenReason(j.offences.length),
      firstOffence,
      byTask: firstPerTask(j.offences),
    };
  }
  if (j.observations === 0)
    return {
      ...base,
      verdict: 'unobserved',
      observations: 0,
      reason: j.unobservedReason ?? 'Nothing seen yet.',
    };
  return { ...base, verdict: 'pass', observations: j.observations, reason: j.passReason };
}

/** Judges one client session from its messages, oldest first; `era` when the caller knows it better. */
export function judgeClient(messages: readonly SeenMessage[], era?: Era): ClientCard {
  const session = readClientSession(messages, era);
  const results: ClientRuleResult[] = [];
  for (const def of clientRulesFor(session.era)) {
    let result: ClientRuleResult;
    try {
      result = toResult(
        JUDGES[def.id](session),
        BROKEN[clientStrength(def, session.era, session.documentsFlavour)],
      );
    } catch (error) {
      // A peer's odd message must never take the card down: this one rule says it could not judge.
      result = {
        id: def.id,
        side: 'client',
        verdict: 'unobserved',
        observations: 0,
        reason: `Could not be judged: ${String(error).slice(0, 200)}`,
      };
    }
    results.push(result);
  }
  const counts: Record<Verdict, number> = { pass: 0, fail: 0, warn: 0, info: 0, unobserved: 0 };
  for (const r of results) counts[r.verdict]++;
  return { era: session.era, documentsFlavour: session.documentsFlavour, rules: results, counts };
}
