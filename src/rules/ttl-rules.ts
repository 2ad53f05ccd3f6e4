/**
 * Rules on a task's lifetime, judged from the tasks' timelines: the ttl given, honoured, not cut short and not
 * overstayed.
 */
import { isObject } from '../mcp';
import { offence, terminal, type Context, type Found, type Judgement, type TaskView } from './evidence';
import { count, its, was } from './words';

/**
 * A purge this much before the ttl ran out is still "on time": latency and the clock estimate (at least 1 s),
 * and a poll interval, since the purge is seen only at the next poll after it, plus 1 s of timestamp resolution.
 */
const EARLY_PURGE_TOLERANCE_MS = 1_000;
export const earlyPurgeTolerance = (pollIntervalMs: number | undefined): number =>
  Math.max(EARLY_PURGE_TOLERANCE_MS, (pollIntervalMs ?? 0) + 1_000);
/** A task still answered this long after its ttl ran out (at least) was kept "far beyond" it. */
const KEPT_BEYOND_MIN_MS = 2_000;
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
    passReason: `${count(n, 'tasks/get answer')}, each with a ttl.`,
    brokenReason: (k) => `${k} of ${n} tasks/get answers carried no ttl (not even null for unlimited).`,
  };
}

const expiryLocal = (ctx: Context, view: TaskView): number | undefined =>
  typeof view.ttl === 'number' && view.createdAtMs !== undefined
    ? view.createdAtMs + view.ttl - ctx.input.clockOffsetMs
    : undefined;

/** Tasks this client asked to cancel (the tracker's cancels and any tasks/cancel in the traffic log). */
function cancelledHere(ctx: Context): Set<string> {
  const out = new Set<string>();
  for (const { task } of ctx.tasks)
    if (task.entries.some((e) => (e.kind === 'observation' || e.kind === 'error') && e.source === 'cancel'))
      out.add(task.taskId);
  for (const event of ctx.input.traffic) {
    if (event.direction !== 'out' || event.method !== 'tasks/cancel' || !isObject(event.message)) continue;
    const params = isObject(event.message.params) ? event.message.params : {};
    if (typeof params.taskId === 'string') out.add(params.taskId);
  }
  return out;
}

export function ttlNotPurgedEarly(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  const cancelled = cancelledHere(ctx);
  for (const view of ctx.tasks) {
    const { task } = view;
    // Only the receiver's own -32602 for a task it had: never an ended session, never an id it never knew.
    if (task.lifecycle !== 'purged') continue;
    const purged = task.entries.find((e) => e.kind === 'purged');
    if (!purged || view.ttl === undefined) continue;
    // Receivers may delete a cancelled task at any time (2025-11-25, Task Cancellation): a task cancelled
    // from here and then gone is no early purge.
    if (cancelled.has(task.taskId)) continue;
    n++;
    if (view.ttl === null) {
      offences.push(offence(task.taskId, purged.at, 'purged although its ttl was null (unlimited)'));
      continue;
    }
    const expires = expiryLocal(ctx, view);
    const pollInterval = view.obs.findLast((o) => o.pollInterval !== undefined)?.pollInterval;
    if (expires !== undefined && purged.at < expires - earlyPurgeTolerance(pollInterval))
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
    passReason: `${count(n, 'task')} purged, each only after its ttl ran out.`,
    brokenReason: (k) => `${count(k, 'task')} ${was(k)} gone (-32602) before ${its(k)} ttl ran out.`,
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
          `the receiver still kept it ${Math.round((far.at - expires) / 1000)} s after its ttl ran out (createdAt + ttl)`,
        ),
      );
  }
  return {
    id: 'ttl-not-kept-beyond',
    observations: n,
    offences,
    passReason: `Expired tasks were cleaned up promptly (${count(n, 'look')} after expiry).`,
    // Whose doing it is: the receiver's. Keeping a task a while is allowed; cleaning up promptly is a SHOULD.
    brokenReason: (k) =>
      `The receiver kept ${count(k, 'task')} well after ${its(k)} ttl ran out: receivers SHOULD clean up expired tasks promptly (a while is allowed).`,
    unobservedReason: 'No task was asked about after its ttl ran out.',
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
    passReason: `${count(n, 'task')} got the ttl asked for.`,
    brokenReason: (k) =>
      `${k} of ${count(n, 'task')} got another ttl than asked for (the receiver may choose).`,
    unobservedReason: 'No task was created here with a requested ttl.',
  };
}
