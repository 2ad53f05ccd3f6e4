/**
 * The receiver report card: how well a receiver follows the task rules. Each rule carries the
 * spec's own strength; the verdict follows from it: a MUST broken fails, a SHOULD broken warns, a MAY not used
 * is information, never a fail. Rules are judged from what the tracker observed (passive) and, on the
 * person's request, from the active check's probes (active).
 */
import type { Era } from '../mcp';

export type Strength = 'MUST' | 'SHOULD' | 'MAY';

/** unobserved: nothing seen yet that the rule could be judged on. */
export type Verdict = 'pass' | 'fail' | 'warn' | 'info' | 'unobserved';

export type RuleId =
  | 'poll-interval-present'
  | 'poll-interval-stable'
  | 'ttl-present'
  | 'ttl-not-purged-early'
  | 'ttl-not-kept-beyond'
  | 'status-transitions'
  | 'created-at-fixed'
  | 'last-updated-monotonic'
  | 'timestamps-not-future'
  | 'result-after-terminal'
  | 'result-related-meta'
  | 'failed-result-explains'
  | 'pushes-consistent'
  | 'pushes-sent'
  | 'unknown-task-error'
  | 'capability-absent-error'
  | 'undeclared-method-refused'
  | 'rate-limit-retry-after'
  | 'capability-tasks-list'
  | 'capability-tasks-cancel'
  | 'tool-task-support'
  | 'terminal-cancel-refused'
  | 'task-only-for-tools-call'
  | 'requested-ttl-honoured'
  | 'list-paging'
  | 'auth-challenge-names-metadata'
  | 'auth-resource-matches'
  | 'auth-s256-offered'
  | 'auth-issuer-matches';

export interface RuleDef {
  id: RuleId;
  title: string;
  strength: Strength;
  /** Links to the rule's text, per protocol generation; a rule without one there does not apply to it. */
  spec: Partial<Record<Era, string>>;
  /** passive: judged from what the tracker observes; active: only the check's probes can show it. */
  judgedBy: 'passive' | 'active' | 'both';
  /** The spec's sentence the strength comes from, per generation (shown beside the link). */
  quote?: Partial<Record<Era, string>>;
  /** Where a generation words the rule with another keyword than `strength` (see strengthFor in rules.ts). */
  eraStrength?: Partial<Record<Era, Strength>>;
}

/** The first observation that broke the rule: where to open the task, or the traffic message. */
export interface Offence {
  taskId?: string;
  /** Wall-clock ms of the observation, to open the task's timeline at that point. */
  at?: number;
  /** The traffic message's seq, when the evidence is a message. */
  trafficSeq?: number;
  detail: string;
}

export interface RuleResult {
  id: RuleId;
  verdict: Verdict;
  /** How many observations the verdict rests on. */
  observations: number;
  /** One line a person understands. */
  reason: string;
  firstOffence?: Offence;
  /** Where the verdict came from; an active finding outranks a passive one for the same rule. */
  source: 'passive' | 'active';
}

export interface ActiveCheckStep {
  id: string;
  title: string;
  state: 'pending' | 'running' | 'done' | 'skipped' | 'stopped' | 'error';
  /** Why it was skipped (no tool to use, capability absent) or what went wrong. */
  note?: string;
}

export interface ActiveCheckState {
  running: boolean;
  startedAt?: number;
  endedAt?: number;
  steps: ActiveCheckStep[];
  /** Findings so far, merged over the passive verdicts. */
  findings: RuleResult[];
  stopped?: boolean;
}

export interface ReportCard {
  receiver: { url: string; era?: Era; name?: string; version?: string };
  generatedAt: number;
  rules: RuleResult[];
  counts: Record<Verdict, number>;
  active?: ActiveCheckState;
}
