/**
 * The report card's passive rules for one task: what the card would hold against the receiver because of
 * this task alone, so the task can say it where a person looks at it. Judging one task costs what its own
 * timeline costs, and only the task on screen is judged, when it changes.
 */
import type { Era, Normalised, TaskResultSnapshot, TaskSnapshot } from '../mcp';
import type { TrackedTask } from '../tracker/task-store';
import { buildContext, type Context, type Judgement } from './evidence';
import { appliesTo, ruleDef, strengthFor } from './catalogue';
import type { RuleId, Strength } from './report-types';
import * as rules from './task-rules';

/**
 * The rules a single task's timeline can break. Rules on the traffic, the receiver's declarations or many
 * tasks together (pushes sent at all) are the card's alone; a MAY is never a fault of a task.
 */
const TASK_JUDGES: ReadonlyArray<[RuleId, (ctx: Context) => Judgement]> = [
  ['ttl-present', rules.ttlPresent],
  ['ttl-not-purged-early', rules.ttlNotPurgedEarly],
  ['ttl-not-kept-beyond', rules.ttlNotKeptBeyond],
  ['status-transitions', rules.statusTransitions],
  ['created-at-fixed', rules.createdAtFixed],
  ['last-updated-monotonic', rules.lastUpdatedMonotonic],
  ['timestamps-not-future', rules.timestampsNotFuture],
  ['result-after-terminal', rules.resultAfterTerminal],
  ['pushes-consistent', rules.pushesConsistent],
];

/** One rule the task's receiver broke, seen on this task. */
export interface TaskRuleBreak {
  id: RuleId;
  title: string;
  strength: Exclude<Strength, 'MAY'>;
  /** Wall-clock ms of the observation that broke it (local clock), for a mark on the timeline. */
  at?: number;
  detail: string;
  /** The rule's text in the receiver's generation of the spec. */
  spec?: string;
}

export interface TaskJudgeInput {
  task: TrackedTask;
  snapshot?: TaskSnapshot;
  result?: Normalised<TaskResultSnapshot>;
  era: Era;
  clockOffsetMs: number;
  clockSamples: number;
}

export function judgeTask(input: TaskJudgeInput): TaskRuleBreak[] {
  const { task, snapshot, result, era } = input;
  const ctx = buildContext({
    receiver: { url: '', era },
    support: { list: false, cancel: false, toolCall: false, era },
    tools: [],
    tasks: [task],
    snapshots: snapshot ? new Map([[task.taskId, snapshot]]) : undefined,
    results: result ? new Map([[task.taskId, result]]) : new Map(),
    traffic: [],
    clockOffsetMs: input.clockOffsetMs,
    clockSamples: input.clockSamples,
    // No rule judged here reads the time of judging.
    now: 0,
  });
  const breaks: TaskRuleBreak[] = [];
  for (const [id, judge] of TASK_JUDGES) {
    const def = ruleDef(id);
    if (!appliesTo(def, era)) continue;
    const strength = strengthFor(def, era);
    if (strength === 'MAY') continue;
    let judgement: Judgement;
    try {
      judgement = judge(ctx);
    } catch {
      // The card says what it could not judge; a task's view just leaves the rule out.
      continue;
    }
    for (const found of judgement.offences)
      breaks.push({
        id,
        title: def.title,
        strength,
        at: found.at,
        detail: found.detail,
        spec: def.spec[era],
      });
  }
  return breaks.sort((a, b) => (a.at ?? 0) - (b.at ?? 0));
}
