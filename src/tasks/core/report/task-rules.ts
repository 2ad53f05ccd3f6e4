/**
 * Rules judged from the tasks' timelines: what each answer, push, probe and result said, in arrival order.
 * An answer to a question sent before an earlier answer arrived may be older news; such an answer is never
 * held against the receiver (its `sentAt` precedes the other's arrival).
 */
import { isTerminal, type TaskStatus } from '../../../mcp';
import type { ObservationEntry, ResultEntry } from '../store';
import {
  answered,
  askedAt,
  offence,
  parseTime,
  terminal,
  type Context,
  type Found,
  type Judgement,
  type TaskView,
} from './evidence';

/** Beyond this past the estimated clock, a timestamp is in the future (as the tracker's own flag). */
export const FUTURE_TOLERANCE_MS = 60_000;
/** A purge this much before the ttl ran out is still "on time" (latency, clock estimate). */
export const EARLY_PURGE_TOLERANCE_MS = 1_000;
/** A task still answered this long after its ttl ran out (at least) was kept "far beyond" it. */
export const KEPT_BEYOND_MIN_MS = 2_000;
/** pollInterval values outside these are absurd whatever the task. */
const MIN_SANE_POLL_MS = 10;
const MAX_SANE_POLL_MS = 24 * 60 * 60 * 1000;

const fmt = (status: TaskStatus | null) => status ?? '(none)';

export function pollIntervalPresent(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const { task, obs } of ctx.tasks)
    for (const o of obs) {
      if (!answered(o) || terminal(o) || (o.source !== 'poll' && o.source !== 'create')) continue;
      n++;
      if (o.pollInterval === undefined)
        offences.push(
          offence(task.taskId, o.at, `${o.source} answer (${fmt(o.status)}) without pollInterval`),
        );
    }
  return {
    id: 'poll-interval-present',
    observations: n,
    offences,
    passReason: `All ${n} answers about running tasks suggested a pollInterval.`,
    brokenReason: (k) =>
      `${k} of ${n} answers about running tasks gave no pollInterval: Taskscope polls at its own default.`,
  };
}

export function pollIntervalStable(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const { task, obs } of ctx.tasks) {
    const given = obs.flatMap((o) =>
      answered(o) && !terminal(o) && o.pollInterval !== undefined ? [{ o, ms: o.pollInterval }] : [],
    );
    n += given.length;
    const absurd = given.find(({ ms }) => ms < MIN_SANE_POLL_MS || ms > MAX_SANE_POLL_MS)?.o;
    const bad = absurd ?? obs.find((o) => o.warnings.some((w) => w.code === 'bad-poll-interval'));
    if (bad) {
      offences.push(offence(task.taskId, bad.at, `pollInterval ${bad.pollInterval ?? 'unusable'} ms`));
      continue;
    }
    let changes = 0;
    let firstChange: ObservationEntry | undefined;
    given.forEach(({ o, ms }, i) => {
      if (i > 0 && ms !== given[i - 1]?.ms) {
        changes++;
        firstChange ??= o;
      }
    });
    // A change now and then (a job that slows down) is fine; one on most answers cannot be followed.
    if (changes >= 3 && changes * 2 > given.length - 1 && firstChange)
      offences.push(
        offence(
          task.taskId,
          firstChange.at,
          `pollInterval changed on ${changes} of ${given.length - 1} answers`,
        ),
      );
  }
  return {
    id: 'poll-interval-stable',
    observations: n,
    offences,
    passReason: `pollInterval was sane and steady over ${n} answers.`,
    brokenReason: (k) => `${k} task(s) had a pollInterval that was absurd or changed on most answers.`,
  };
}

export function ttlPresent(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const { task, obs } of ctx.tasks)
    for (const o of obs) {
      if (o.source !== 'poll' || o.status === null) continue;
      n++;
      if (o.ttl === undefined)
        offences.push(offence(task.taskId, o.at, 'tasks/get answer without a usable ttl'));
    }
  return {
    id: 'ttl-present',
    observations: n,
    offences,
    passReason: `All ${n} tasks/get answers carried a ttl.`,
    brokenReason: (k) => `${k} of ${n} tasks/get answers carried no ttl (not even null for unlimited).`,
  };
}

const expiryLocal = (ctx: Context, view: TaskView): number | undefined =>
  typeof view.ttl === 'number' && view.createdAtMs !== undefined
    ? view.createdAtMs + view.ttl - ctx.input.clockOffsetMs
    : undefined;

export function ttlNotPurgedEarly(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const view of ctx.tasks) {
    const { task } = view;
    // Only the receiver's own -32602 for a task it had: never an ended session, never an id it never knew.
    if (task.lifecycle !== 'purged') continue;
    const purged = task.entries.find((e) => e.kind === 'purged');
    if (!purged || view.ttl === undefined) continue;
    n++;
    if (view.ttl === null) {
      offences.push(offence(task.taskId, purged.at, 'purged although its ttl was null (unlimited)'));
      continue;
    }
    const expires = expiryLocal(ctx, view);
    if (expires !== undefined && purged.at < expires - EARLY_PURGE_TOLERANCE_MS)
      offences.push(
        offence(
          task.taskId,
          purged.at,
          `purged ${Math.round((expires - purged.at) / 1000)} s before its ttl ran out`,
        ),
      );
  }
  return {
    id: 'ttl-not-purged-early',
    observations: n,
    offences,
    passReason: `${n} task(s) purged, each only after its ttl ran out.`,
    brokenReason: (k) => `${k} task(s) were gone (-32602) before their ttl ran out.`,
    unobservedReason: 'No task was purged while Taskscope watched.',
  };
}

export function ttlNotKeptBeyond(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const view of ctx.tasks) {
    const expires = expiryLocal(ctx, view);
    if (expires === undefined) continue;
    const grace = Math.max(KEPT_BEYOND_MIN_MS, (view.ttl as number) / 2);
    const purged = view.task.entries.find((e) => e.kind === 'purged');
    if (purged && purged.at >= expires) n++;
    const late = view.obs.filter((o) => o.status !== null && terminal(o) && o.at > expires);
    n += late.length;
    const far = late.find((o) => o.at > expires + grace);
    if (far)
      offences.push(
        offence(
          view.task.taskId,
          far.at,
          `still answered ${Math.round((far.at - expires) / 1000)} s after its ttl ran out`,
        ),
      );
  }
  return {
    id: 'ttl-not-kept-beyond',
    observations: n,
    offences,
    passReason: `Expired tasks were cleaned up promptly (${n} look(s) after expiry).`,
    brokenReason: (k) => `${k} task(s) were still there well after their ttl ran out.`,
    unobservedReason: 'No task was asked about after its ttl ran out.',
  };
}

/** The first status after a terminal one that differs from it, asked after the terminal answer arrived. */
function illegalAfter(
  sequence: ObservationEntry[],
): { from: ObservationEntry; to: ObservationEntry } | undefined {
  let last: ObservationEntry | undefined;
  for (const o of sequence) {
    if (last && isTerminal(last.status) && o.status !== last.status && askedAt(o) >= last.at)
      return { from: last, to: o };
    if (!last || !isTerminal(last.status) || askedAt(o) >= last.at) last = o;
  }
  return undefined;
}

export function statusTransitions(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const { task, obs } of ctx.tasks) {
    const sequence = obs.filter(answered);
    n += sequence.length;
    const first = sequence[0];
    if (ctx.era === '2025-11-25' && first?.source === 'create' && first.status !== 'working') {
      offences.push(offence(task.taskId, first.at, `created in status ${fmt(first.status)}, not working`));
      continue;
    }
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
    passReason: `${n} answers, every status change on a legal path.`,
    brokenReason: (k) => `${k} task(s) left a terminal status or began in one other than working.`,
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
    brokenReason: (k) => `${k} task(s) changed their createdAt.`,
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
    brokenReason: (k) => `${k} task(s) gave a lastUpdatedAt earlier than one already given.`,
  };
}

export function timestampsNotFuture(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const { task, obs } of ctx.tasks)
    for (const o of obs) {
      const ms = parseTime(o.lastUpdatedAt);
      if (ms === undefined) continue;
      n++;
      const ahead = ms - o.at - ctx.input.clockOffsetMs;
      const flagged = o.warnings.some((w) => w.code === 'bad-timestamp' && / ahead of /.test(w.message));
      if (ahead > FUTURE_TOLERANCE_MS || flagged) {
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
      `${k} task(s) gave a lastUpdatedAt in the future, beyond the receiver's clock offset.`,
  };
}

export function resultAfterTerminal(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const { task, obs } of ctx.tasks) {
    if (ctx.era === '2026-07-28') {
      const completed = obs.find((o) => o.source !== 'notification' && o.status === 'completed');
      if (!completed) continue;
      n++;
      const result = ctx.input.results.get(task.taskId)?.value;
      if (!result || result.result === null)
        offences.push(offence(task.taskId, completed.at, 'completed, but no result came with it'));
      continue;
    }
    const fetched = task.entries.filter(
      (e): e is ResultEntry => e.kind === 'result' && e.outcome === 'fetched',
    );
    for (const r of fetched) {
      n++;
      // Ended when it was answered (a later change of mind is status-transitions' business)?
      const before = obs.filter((o) => o.status !== null && o.at <= r.at).pop();
      const next = obs.find((o) => answered(o) && askedAt(o) >= r.at);
      if (next && !isTerminal(next.status) && !isTerminal(before?.status)) {
        offences.push(
          offence(task.taskId, r.at, `tasks/result answered, then the task was still ${fmt(next.status)}`),
        );
        break;
      }
    }
  }
  return {
    id: 'result-after-terminal',
    observations: n,
    offences,
    passReason: `${n} result(s), each only once its task had ended.`,
    brokenReason: (k) =>
      ctx.era === '2026-07-28'
        ? `${k} completed task(s) came without their result.`
        : `${k} task(s) had tasks/result answered before the task ended.`,
    unobservedReason: 'No result fetched yet.',
  };
}

export function failedResultExplains(ctx: Context, wireFailures: Map<string, Found | null>): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const { task, obs } of ctx.tasks) {
    const failed = obs.filter((o) => o.status === 'failed' && o.source !== 'notification');
    if (failed.length === 0) continue;
    n++;
    if (ctx.era === '2026-07-28') {
      // The MUST there is the `error` field, read from the raw answer (wire-rules).
      const found = wireFailures.get(task.taskId);
      if (found) offences.push(found);
      continue;
    }
    const said = failed.some((o) => (o.statusMessage ?? '').trim() !== '');
    const result = ctx.input.results.get(task.taskId)?.value;
    const content = Array.isArray(result?.result?.content) ? (result.result.content as unknown[]) : [];
    const resultSays =
      result?.isError === true &&
      content.some(
        (c) =>
          typeof (c as { text?: unknown }).text === 'string' && (c as { text: string }).text.trim() !== '',
      );
    const errorSays = task.entries.some(
      (e) => e.kind === 'result' && e.error?.code !== undefined && (e.error.detail ?? '').trim() !== '',
    );
    if (!said && !resultSays && !errorSays)
      offences.push(
        offence(
          task.taskId,
          failed[0]?.at ?? task.firstSeenAt,
          'failed with no statusMessage and no error text in its result',
        ),
      );
  }
  return {
    id: 'failed-result-explains',
    observations: n,
    offences,
    passReason: `${n} failed task(s), each with a reason.`,
    brokenReason: (k) =>
      ctx.era === '2026-07-28'
        ? `${k} failed task(s) came without the JSON-RPC error that failed them.`
        : `${k} failed task(s) gave no statusMessage and no error text.`,
    unobservedReason: 'No task failed while Taskscope watched.',
  };
}

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
        if (pushedAt === undefined || beforeAt === undefined || pushedAt >= beforeAt) {
          offences.push(
            offence(task.taskId, push.at, `pushed ${push.status} after ${before.status} was answered`),
          );
          break;
        }
      }
      // A terminal push no answer ever confirmed: the next answer asked after it must say the same.
      if (isTerminal(push.status) && !obs.some((o) => answered(o) && o.status === push.status)) {
        const next = obs.slice(i + 1).find((o) => answered(o) && askedAt(o) >= push.at);
        // A result handed over before that answer confirms the push: a later change is another rule's.
        const confirmed = task.entries.some(
          (e) =>
            e.kind === 'result' &&
            e.outcome === 'fetched' &&
            e.at >= push.at &&
            (!next || e.at <= askedAt(next)),
        );
        if (next && next.status !== push.status && !confirmed) {
          offences.push(
            offence(task.taskId, next.at, `pushed ${push.status}, then polled ${fmt(next.status)}`),
          );
          break;
        }
      }
    }
  }
  return {
    id: 'pushes-consistent',
    observations: n,
    offences,
    passReason: `${n} status push(es), none contradicted by a poll.`,
    brokenReason: (k) => `${k} task(s) had a status push that the next poll contradicted.`,
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
    passReason: `${pushes} status push(es) received.`,
    brokenReason: () =>
      `No status push for ${changes} status change(s): the receiver is followed by polling alone (allowed).`,
    unobservedReason: 'No status change seen yet.',
  };
}

export function requestedTtlHonoured(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const { task, obs } of ctx.tasks) {
    const asked = task.call?.ttl;
    const created = obs.find((o) => o.source === 'create');
    if (asked === undefined || !created || created.ttl === undefined) continue;
    n++;
    if (created.ttl !== asked)
      offences.push(offence(task.taskId, created.at, `asked ttl ${asked} ms, got ${String(created.ttl)}`));
  }
  return {
    id: 'requested-ttl-honoured',
    observations: n,
    offences,
    passReason: `${n} task(s) got the ttl they asked for.`,
    brokenReason: (k) => `${k} of ${n} task(s) got another ttl than asked for (the receiver may choose).`,
    unobservedReason: 'No task was created here with a requested ttl.',
  };
}
