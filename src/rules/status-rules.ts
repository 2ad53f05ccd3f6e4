/**
 * Rules on what a task says about itself over time, judged from the tasks' timelines in arrival order: legal
 * status paths, a fixed createdAt, a lastUpdatedAt that never goes back or into the future. Every observation
 * with a status is evidence of the status path: answers, pushes, list items and probes. An observation counts
 * from when it started (an answer from when its request was sent, a push from when it arrived), so an answer
 * to a question sent before another observation arrived may be older news and is never held against the
 * receiver: a push overtaking an in-flight answer is no fault.
 */
import { isTerminal, type TaskStatus } from '../mcp';
import { CLOCK_OUTLIER_MS } from '../tracker/clock-offset';
import type { ObservationEntry } from '../tracker/task-store';
import {
  askedAt,
  contradictingAnswer,
  seen,
  offence,
  parseTime,
  type Context,
  type Found,
  type Judgement,
} from './evidence';
import { count } from './words';

export const fmt = (status: TaskStatus | null) => status ?? '(none)';
/** A push whose lastUpdatedAt is not later than the other observation's: older news, whenever it arrived. */
function olderPush(o: ObservationEntry, than: ObservationEntry): boolean {
  if (o.source !== 'notification') return false;
  const ms = parseTime(o.lastUpdatedAt);
  const thanMs = parseTime(than.lastUpdatedAt);
  return ms !== undefined && thanMs !== undefined && ms <= thanMs;
}

/**
 * The first status after a terminal one that differs from it, seen by an observation that started after the
 * terminal one was received.
 */
function illegalAfter(
  sequence: ObservationEntry[],
): { from: ObservationEntry; to: ObservationEntry } | undefined {
  let last: ObservationEntry | undefined;
  for (const o of sequence) {
    if (
      last &&
      isTerminal(last.status) &&
      o.status !== last.status &&
      askedAt(o) >= last.at &&
      !olderPush(o, last)
    )
      return { from: last, to: o };
    if (!last || !isTerminal(last.status) || askedAt(o) >= last.at) last = o;
  }
  return undefined;
}

export function statusTransitions(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const { task, obs } of ctx.tasks) {
    // A terminal push the next answer contradicts (and nothing confirmed) is pushes-consistent's offence: the
    // push said something false, the task did not change its mind.
    const sequence = obs.filter((o, i) => seen(o) && !contradictingAnswer(task, obs, i));
    n += sequence.length;
    // A create answer in another status than working is legal: the task may move before the answer is sent.
    const bad = illegalAfter(sequence);
    if (bad)
      offences.push(
        offence(task.taskId, bad.to.at, `${fmt(bad.from.status)} → ${fmt(bad.to.status)} (${bad.to.source})`),
      );
  }
  return {
    id: 'status-transitions',
    observations: n,
    offences,
    passReason: `${count(n, 'status', 'statuses')} seen (answers, pushes, lists and probes), every change on a legal path.`,
    brokenReason: (k) => `${count(k, 'task')} left a terminal status.`,
  };
}

export function createdAtFixed(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const { task, obs } of ctx.tasks) {
    let first: number | undefined;
    for (const o of obs) {
      const ms = parseTime(o.createdAt);
      if (ms === undefined) continue;
      n++;
      if (first === undefined) first = ms;
      else if (ms !== first) {
        offences.push(offence(task.taskId, o.at, `createdAt moved to ${o.createdAt} (${o.source})`));
        break;
      }
    }
  }
  return {
    id: 'created-at-fixed',
    observations: n,
    offences,
    passReason: `createdAt stayed the same over ${n} answers.`,
    brokenReason: (k) => `${count(k, 'task')} changed createdAt.`,
  };
}

export function lastUpdatedMonotonic(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const { task, obs } of ctx.tasks) {
    let last: { ms: number; at: number; iso: string } | undefined;
    for (const o of obs) {
      if (o.source === 'notification') continue;
      const ms = parseTime(o.lastUpdatedAt);
      if (ms === undefined) continue;
      n++;
      if (last && ms < last.ms && askedAt(o) >= last.at) {
        offences.push(
          offence(task.taskId, o.at, `lastUpdatedAt went back from ${last.iso} to ${o.lastUpdatedAt}`),
        );
        break;
      }
      if (!last || ms >= last.ms) last = { ms, at: o.at, iso: o.lastUpdatedAt ?? '' };
    }
  }
  return {
    id: 'last-updated-monotonic',
    observations: n,
    offences,
    passReason: `lastUpdatedAt never went backwards over ${n} answers.`,
    brokenReason: (k) => `${count(k, 'task')} gave a lastUpdatedAt earlier than one already given.`,
  };
}

export function timestampsNotFuture(ctx: Context): Judgement {
  // Without one fresh timestamp the receiver's clock is unknown (offset 0): a listed task's lastUpdatedAt
  // from a receiver whose clock is ahead would look like the future.
  if (ctx.input.clockSamples === 0)
    return {
      id: 'timestamps-not-future',
      observations: 0,
      offences: [],
      passReason: '',
      brokenReason: () => '',
      unobservedReason:
        "The receiver's clock is not known yet: no task was created here or seen to change (listed tasks alone do not tell it).",
    };
  let n = 0;
  const offences: Found[] = [];
  for (const { task, obs } of ctx.tasks)
    for (const o of obs) {
      const ms = parseTime(o.lastUpdatedAt);
      if (ms === undefined) continue;
      n++;
      // Judged with the final clock estimate only: the tracker's warning at arrival used the estimate of
      // then, which a receiver whose clock is ahead (a task first seen via tasks/list) may not have had yet.
      const ahead = ms - o.at - ctx.input.clockOffsetMs;
      // Beyond the tracker's own outlier margin, as its flag at arrival.
      if (ahead > CLOCK_OUTLIER_MS) {
        offences.push(
          offence(
            task.taskId,
            o.at,
            `lastUpdatedAt ${o.lastUpdatedAt} is ${Math.round(ahead / 1000)} s ahead`,
          ),
        );
        break;
      }
    }
  return {
    id: 'timestamps-not-future',
    observations: n,
    offences,
    passReason: `No lastUpdatedAt ahead of the receiver's clock over ${n} answers (offset ${Math.round(ctx.input.clockOffsetMs)} ms).`,
    brokenReason: (k) =>
      `${count(k, 'task')} gave a lastUpdatedAt in the future, beyond the receiver's clock offset.`,
  };
}
