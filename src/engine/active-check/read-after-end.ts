import { normaliseTask, type TaskSnapshot } from '../../mcp';
import { count } from '../../rules/words';
import { seconds } from './plan';
import { walkList } from './list-steps';
import { skip, type Probe, type Subject } from './probe';

/**
 * The active check's last step: once every task it started has ended, it waits (the listen stream still
 * open) and reads them all again — tasks/list where the receiver has it, else tasks/get per task. An ended
 * task must keep its status; a receiver that brings one back to life shows it only to someone who asks after
 * the end, which neither the page's polls (they stop at the end) nor the pushes (they tell legal moves) do.
 * What is read joins each task's observations, so its timeline shows it too.
 */
export async function readAfterEnd(p: Probe): Promise<string> {
  if (p.started.length === 0) skip('The check started no task: nothing to read again.');
  // Each to its end, within the wait a step allows.
  const until = Date.now() + p.timing.maxExpiryWaitMs;
  for (const subject of p.started) {
    while (!subject.gone && !subject.ended && Date.now() < until) {
      const interval = subject.snapshot?.pollInterval ?? 1000;
      await p.sleep(Math.min(Math.max(interval, 250), 2000, Math.max(0, until - Date.now())));
      await p.read(subject);
    }
  }
  const ended = p.started.filter((s) => !s.gone && s.ended);
  const running = p.started.filter((s) => !s.gone && !s.ended);
  if (ended.length === 0)
    p.notJudged(
      'status-transitions',
      running.length > 0
        ? `${count(running.length, 'task')} the check started still ran after ${seconds(p.timing.maxExpiryWaitMs)}`
        : 'every task the check started was gone by its end',
    );
  const lastEnd = Math.max(...ended.map((s) => s.ended?.at ?? 0));
  const wait = lastEnd + p.timing.readAgainAfterMs - Date.now();
  if (wait > 0) await p.sleep(wait);

  const ids = new Set(ended.map((s) => s.taskId));
  const listed = p.target.era === '2025-11-25' && p.target.support.list ? await walkList(p, ids) : undefined;
  const changed: Array<{ subject: Subject; now: TaskSnapshot }> = [];
  let read = 0;
  for (const subject of ended) {
    const item = listed?.items.get(subject.taskId);
    let now: TaskSnapshot | null;
    if (item !== undefined && listed) {
      const normalised = normaliseTask(item, {
        expectedTaskId: subject.taskId,
        previous: subject.snapshot,
        era: p.target.era,
      });
      p.target.observed?.(subject.taskId, normalised, { source: 'list', sentAt: listed.sentAt });
      now = normalised.value;
    } else {
      // Not listed (purged, or a listing cut short), or no tasks/list here: asked by id.
      now = await p.read(subject);
    }
    // Gone (purged at its ttl), or read without a status (a normaliser warning, not a change of mind).
    if (!now || now.status === null) continue;
    read++;
    if (now.status !== subject.ended?.status) changed.push({ subject, now });
  }
  const after = seconds(p.timing.readAgainAfterMs);
  const how = listed ? 'tasks/list' : 'tasks/get';
  const first = changed[0];
  if (first) {
    const was = first.subject.ended?.status ?? 'ended';
    p.broken(
      'status-transitions',
      `${count(changed.length, 'ended task')} read another status ${after} or more after the end (${how}): ${was} → ${first.now.status}. An ended task must keep its status.`,
      {
        taskId: first.subject.taskId,
        at: Date.now(),
        detail: `${was} → ${first.now.status} (${how}, after the end)`,
      },
    );
    return `${count(changed.length, 'task')} changed after the end`;
  }
  if (read === 0) return 'every ended task was gone when read again';
  p.find(
    'status-transitions',
    'pass',
    `${count(read, 'ended task')} read again with ${how} ${after} or more after the last end: each kept its status.`,
  );
  return `${count(read, 'task')} kept their status (${how})`;
}
