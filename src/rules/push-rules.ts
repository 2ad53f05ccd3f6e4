/**
 * Rules on status pushes (notifications/tasks/status): sent at all (a MAY), and never contradicted by what a
 * later answer says.
 */
import { isTerminal, type TaskStatus } from '../mcp';
import {
  answered,
  contradictingAnswer,
  offence,
  parseTime,
  type Context,
  type Found,
  type Judgement,
} from './evidence';
import { fmt } from './status-rules';
import { count } from './words';

export function pushesConsistent(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const { task, obs } of ctx.tasks) {
    for (const [i, push] of obs.entries()) {
      if (push.source !== 'notification' || push.status === null) continue;
      n++;
      const pushedAt = parseTime(push.lastUpdatedAt);
      // A terminal status already answered: a push saying otherwise (and no older) contradicts it.
      const before = obs
        .slice(0, i)
        .reverse()
        .find((o) => answered(o));
      if (before && isTerminal(before.status) && push.status !== before.status) {
        const beforeAt = parseTime(before.lastUpdatedAt);
        // Only a push that is newer news (strictly later) contradicts; without both times nothing says so.
        if (pushedAt !== undefined && beforeAt !== undefined && pushedAt > beforeAt) {
          offences.push(
            offence(task.taskId, push.at, `pushed ${push.status} after ${before.status} was answered`),
          );
          break;
        }
      }
      // A terminal push no answer ever confirmed: the next answer asked after it must say the same.
      const next = contradictingAnswer(task, obs, i);
      if (next) {
        offences.push(
          offence(task.taskId, next.at, `pushed ${push.status}, then polled ${fmt(next.status)}`),
        );
        break;
      }
    }
  }
  return {
    id: 'pushes-consistent',
    observations: n,
    offences,
    passReason: `${count(n, 'status push', 'status pushes')}, none contradicted by a poll.`,
    brokenReason: (k) => `${count(k, 'task')} had a status push that the next poll contradicted.`,
    unobservedReason: 'No status push received.',
  };
}

export function pushesSent(ctx: Context): Judgement {
  let pushes = 0;
  let changes = 0;
  let firstChange: Found | undefined;
  for (const { task, obs } of ctx.tasks) {
    pushes += obs.filter((o) => o.source === 'notification').length;
    let last: TaskStatus | null = null;
    for (const o of obs) {
      if (!answered(o)) continue;
      if (last !== null && o.status !== last) {
        changes++;
        firstChange ??= offence(task.taskId, o.at, `${last} → ${fmt(o.status)} seen only by polling`);
      }
      last = o.status;
    }
  }
  return {
    id: 'pushes-sent',
    observations: pushes + changes,
    offences: pushes === 0 && firstChange ? [firstChange] : [],
    passReason: `${count(pushes, 'status push', 'status pushes')} received.`,
    brokenReason: () =>
      `No status push for ${count(changes, 'status change')}: the receiver is followed by polling alone (allowed).`,
    unobservedReason: 'No status change seen yet.',
  };
}
