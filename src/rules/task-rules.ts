/**
 * Rules judged from the tasks' timelines: what each answer, push, probe and result said, in arrival order.
 * An answer to a question sent before an earlier answer arrived may be older news; such an answer is never
 * held against the receiver (its `sentAt` precedes the other's arrival).
 *
 * The lifetime, status and push rules are in ttl-rules.ts, status-rules.ts and push-rules.ts; this module
 * holds the poll interval and result rules and gathers all of them for evaluate.ts.
 */
import { isTerminal } from '../mcp';
import type { ObservationEntry, ResultEntry } from '../tracker/task-store';
import { answered, askedAt, offence, terminal, type Context, type Found, type Judgement } from './evidence';
import { fmt } from './status-rules';
import { count, its } from './words';

export * from './push-rules';
export * from './status-rules';
export * from './ttl-rules';

/** pollInterval values outside these are absurd whatever the task. */
const MIN_SANE_POLL_MS = 10;
const MAX_SANE_POLL_MS = 24 * 60 * 60 * 1000;
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
    passReason: `${count(n, 'answer')} about running tasks, each suggesting a pollInterval.`,
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
    passReason: `pollInterval was sane and steady over ${count(n, 'answer')}.`,
    brokenReason: (k) => `${count(k, 'task')} had a pollInterval that was absurd or changed on most answers.`,
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
    passReason: `${count(n, 'result')}, each only once its task had ended.`,
    brokenReason: (k) =>
      ctx.era === '2026-07-28'
        ? `${count(k, 'completed task')} came without ${its(k)} result.`
        : `${count(k, 'task')} had tasks/result answered before the task ended.`,
    unobservedReason: 'No result fetched yet.',
  };
}

export function failedResultExplains(ctx: Context, wireFailures: Map<string, Found | null>): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const { task, obs } of ctx.tasks) {
    // A failed status seen once, in a push too, makes the task one that must say why.
    const failed = obs.filter((o) => o.status === 'failed');
    if (failed.length === 0) continue;
    // 2026-07-28: the MUST is the `error` field of an answer (wire-rules); a push alone does not judge it.
    if (ctx.era === '2026-07-28' && !failed.some(answered)) continue;
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
    passReason: `${count(n, 'failed task')}, each with a reason.`,
    brokenReason: (k) =>
      ctx.era === '2026-07-28'
        ? `${count(k, 'failed task')} came without the JSON-RPC error that failed them.`
        : `${count(k, 'failed task')} gave no statusMessage and no error text.`,
    unobservedReason: 'No task failed while Taskscope watched.',
  };
}
