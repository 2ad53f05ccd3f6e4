import { classifyError, isTerminal, normaliseTask } from '../../mcp';
import type { Offence } from '../../rules/report-types';
import { appliesTo, ruleDef } from '../../rules/catalogue';
import { seconds } from './plan';
import { codeText, excerpt, skip, Stopped, Skip, type Probe } from './probe';

/**
 * The active check's steps on tasks: an unknown id, tasks/result before the end, a cancel of a live
 * and of an ended task, a short requested ttl. Each returns the note shown beside the step; the verdicts go
 * through the probe.
 */

export async function unknownId(p: Probe): Promise<string> {
  const { list, cancel, toolCall } = p.target.support;
  // A receiver without tasks has no tasks/get to grade: its -32601 is right, not a wrong code for an unknown id.
  if (!list && !cancel && !toolCall) skip('The receiver declares no tasks capability: it has no tasks/get.');
  const taskId = `taskscope-check-unknown-${crypto.randomUUID()}`;
  const { answer, error } = await p.attempt('tasks/get', { taskId });
  if (error?.code === -32602) {
    p.find('unknown-task-error', 'pass', 'tasks/get on an id never issued answered -32602.');
    return 'answered -32602';
  }
  const said = error ? `answered ${codeText(error)}` : `answered with a result: ${excerpt(answer)}`;
  p.broken('unknown-task-error', `tasks/get on an id never issued ${said}; the spec asks for -32602.`, {
    detail: `tasks/get ${taskId}: ${said}`,
    at: Date.now(),
  });
  return said;
}

export async function resultBeforeTerminal(p: Probe): Promise<string> {
  // 2026-07-28 carries the result in tasks/get and has no tasks/result; its result-after-terminal rule (a
  // completed task comes with its result) is judged from what the tracker sees, not by this probe.
  if (p.target.era === '2026-07-28') skip('2026-07-28 has no tasks/result: results come with tasks/get.');
  const subject = await p.mainSubject();
  const before = await p.read(subject);
  if (!before || isTerminal(before.status))
    p.notJudged(
      'result-after-terminal',
      `The task (${subject.taskId}) had ended before tasks/result could be asked early.`,
    );
  // Held open past the probe's time means it blocks, as 2025-11-25 asks. Aborted by us, not by a deadline,
  // so the connection's health does not count it as a receiver not answering.
  if (p.stopped) throw new Stopped();
  const probe = new AbortController();
  const onStop = () => probe.abort();
  p.signal.addEventListener('abort', onStop, { once: true });
  const timer = setTimeout(() => probe.abort(), p.timing.blockProbeMs);
  const askedAt = Date.now();
  try {
    const answer = await p.target.request(
      'tasks/result',
      { taskId: subject.taskId },
      { timeoutMs: 60_000, signal: probe.signal },
    );
    clearTimeout(timer);
    const now = await p.read(subject);
    if (!now) skip('The task was gone by the time tasks/result answered.');
    if (isTerminal(now.status)) {
      p.find(
        'result-after-terminal',
        'pass',
        'tasks/result answered once the task had ended (it ended during the probe).',
      );
      return 'the task ended during the probe';
    }
    p.broken(
      'result-after-terminal',
      `tasks/result answered while the task was still ${now.status}; 2025-11-25 says it blocks until the task ends.`,
      { taskId: subject.taskId, at: Date.now(), detail: `tasks/result answered ${excerpt(answer)}` },
    );
    return 'answered before the end';
  } catch (error) {
    if (p.stopped) throw new Stopped();
    if (error instanceof Skip) throw error;
    if (probe.signal.aborted) {
      p.find(
        'result-after-terminal',
        'pass',
        `tasks/result was held open while the task ran (${seconds(Date.now() - askedAt)}): it blocks until the end.`,
      );
      return 'blocks until the task ends';
    }
    const classified = classifyError(error, { method: 'tasks/result', taskLive: true, knownTask: true });
    if (classified.code === undefined)
      throw new Error(`tasks/result: ${classified.message}`, { cause: error });
    const now = await p.read(subject);
    if (!now) skip(`The task was gone when tasks/result answered ${codeText(classified)}.`);
    // An ended task's tasks/result is what the call gave, and that may be a JSON-RPC error.
    if (isTerminal(now.status)) {
      p.find('result-after-terminal', 'pass', 'tasks/result answered once the task had ended.');
      return `the task ended; answered ${classified.code}`;
    }
    p.broken(
      'result-after-terminal',
      `tasks/result on a running task answered ${codeText(classified)} at once; 2025-11-25 says it blocks until the task ends.`,
      { taskId: subject.taskId, at: Date.now(), detail: `tasks/result: ${codeText(classified)}` },
    );
    return `answered ${classified.code}`;
  } finally {
    clearTimeout(timer);
    p.signal.removeEventListener('abort', onStop);
  }
}

export async function cancelLive(p: Probe): Promise<string> {
  if (!p.target.support.cancel)
    skip('The receiver does not declare tasks/cancel (the last step checks that it refuses it).');
  // A task of its own, cancelled as soon as its create answer is in: live even on a short job, and the
  // shared task is left to end on its own (read-after-end reads it again after that end).
  const subject = await p.createTask();
  if (!subject)
    p.notJudged(
      'capability-tasks-cancel',
      'The receiver answered the tool at once instead of starting a task.',
    );
  if (subject.snapshot && isTerminal(subject.snapshot.status))
    p.notJudged(
      'capability-tasks-cancel',
      `The task (${subject.taskId}) had ended in its create answer: there was nothing live to cancel.`,
    );
  subject.cancelled = true;
  const { answer, error } = await p.attempt('tasks/cancel', { taskId: subject.taskId });
  const offence = (detail: string): Offence => ({ taskId: subject.taskId, at: Date.now(), detail });
  if (error) {
    const now = await p.read(subject);
    if (now && isTerminal(now.status) && now.status !== 'cancelled')
      p.notJudged('capability-tasks-cancel', `The task ended (${now.status}) just as it was cancelled.`);
    p.broken(
      'capability-tasks-cancel',
      `tasks/cancel on a running task was refused: ${codeText(error)}, though the receiver declares tasks/cancel.`,
      offence(`tasks/cancel: ${codeText(error)}`),
    );
    return 'refused';
  }
  if (p.target.era !== '2026-07-28') {
    const said = normaliseTask(answer, { expectedTaskId: subject.taskId, era: p.target.era }).value;
    if (said?.status !== 'cancelled') {
      p.broken(
        'capability-tasks-cancel',
        `tasks/cancel answered status ${said?.status ?? 'none'}; the task must be cancelled before the answer.`,
        offence(`tasks/cancel answered ${excerpt(answer)}`),
      );
      return `answered ${said?.status ?? 'no status'}`;
    }
  }
  // 2026-07-28 only acknowledges: the task is watched for a little while to read cancelled.
  const until = Date.now() + (p.target.era === '2026-07-28' ? p.timing.cancelSettleMs : 0);
  let now = await p.read(subject);
  while (now?.status !== 'cancelled' && now && !isTerminal(now.status) && Date.now() < until) {
    await p.sleep(Math.min(500, until - Date.now()));
    now = await p.read(subject);
  }
  if (now === null) {
    p.find('capability-tasks-cancel', 'pass', 'tasks/cancel was accepted and the task is gone.');
    return 'cancelled and removed';
  }
  if (now.status === 'cancelled') {
    p.find(
      'capability-tasks-cancel',
      'pass',
      'tasks/cancel moved a running task to cancelled, and tasks/get agrees.',
    );
    return 'cancelled';
  }
  if (p.target.era === '2026-07-28') {
    p.find(
      'capability-tasks-cancel',
      'info',
      `tasks/cancel was acknowledged; the task still reads ${now.status} ${seconds(p.timing.cancelSettleMs)} later (2026-07-28 lets the receiver go on).`,
      offence(`tasks/get after cancel: ${now.status}`),
    );
    return `still ${now.status}`;
  }
  p.broken(
    'capability-tasks-cancel',
    `tasks/cancel answered cancelled, but tasks/get then said ${now.status}.`,
    offence(`tasks/get after cancel: ${now.status}`),
  );
  return `tasks/get said ${now.status}`;
}

export async function cancelTerminal(p: Probe): Promise<string> {
  if (!appliesTo(ruleDef('terminal-cancel-refused'), p.target.era))
    skip('2026-07-28 does not say how a cancel of an ended task is answered.');
  if (!p.target.support.cancel)
    skip('The receiver does not declare tasks/cancel (the last step checks that it refuses it).');
  // The shared task once it has ended on its own; while it still runs, the one cancel-live cancelled.
  let subject = await p.mainSubject();
  let now = await p.read(subject);
  const cancelled = p.started.find((s) => s.cancelled && !s.gone && s !== subject);
  if (now && !isTerminal(now.status) && cancelled) {
    const read = await p.read(cancelled);
    if (read && isTerminal(read.status)) [subject, now] = [cancelled, read];
  }
  // The task may still run (its cancel was skipped or the receiver went on): give it the time a wait allows.
  const until = Date.now() + p.timing.maxExpiryWaitMs;
  while (now && !isTerminal(now.status) && Date.now() < until) {
    await p.sleep(Math.min(Math.max(now.pollInterval ?? 1000, 250), 2000, until - Date.now()));
    now = await p.read(subject);
  }
  if (!now)
    p.notJudged(
      'terminal-cancel-refused',
      'The receiver removed the task once it ended: there is no ended task to cancel.',
    );
  if (!isTerminal(now.status))
    p.notJudged(
      'terminal-cancel-refused',
      `The task was still ${now.status} after ${seconds(p.timing.maxExpiryWaitMs)}.`,
    );
  const ended = now.status;
  subject.cancelled = true;
  const { answer, error } = await p.attempt('tasks/cancel', { taskId: subject.taskId });
  const offence = (detail: string): Offence => ({ taskId: subject.taskId, at: Date.now(), detail });
  if (error?.code === -32601) {
    // Not a verdict on ended tasks: the method the receiver declares is missing altogether.
    p.broken(
      'capability-tasks-cancel',
      `tasks/cancel is declared, but answered ${codeText(error)}.`,
      offence(`tasks/cancel: ${codeText(error)}`),
    );
    return 'answered -32601';
  }
  if (error?.code === -32602)
    p.find('terminal-cancel-refused', 'pass', `tasks/cancel on a ${ended} task was refused with -32602.`);
  else {
    const said = error ? `refused it with ${codeText(error)}` : `accepted it (${excerpt(answer)})`;
    p.broken(
      'terminal-cancel-refused',
      `tasks/cancel on a ${ended} task: the receiver ${said}; the spec asks for -32602.`,
      offence(`tasks/cancel on ${ended}: ${said}`),
    );
  }
  const after = await p.read(subject);
  if (after?.status && after.status !== ended) {
    p.broken(
      'status-transitions',
      `A ${ended} task read ${after.status} after a second tasks/cancel: an ended task must keep its status.`,
      offence(`${ended} → ${after.status}`),
    );
  }
  return error ? `answered ${error.code}` : 'accepted';
}

export async function shortTtl(p: Probe): Promise<string> {
  const requested = p.timing.shortTtlMs;
  const sentAt = Date.now();
  const subject = await p.createTask(requested);
  if (!subject)
    p.notJudged(
      'requested-ttl-honoured',
      'The receiver answered the tool at once instead of starting a task.',
    );
  const ttl = subject.snapshot?.ttl;
  const offence = (detail: string): Offence => ({ taskId: subject.taskId, at: Date.now(), detail });
  if (ttl === undefined) {
    p.broken(
      'requested-ttl-honoured',
      `Asked for a ttl of ${requested} ms, the create answer carries no ttl; the actual ttl must be said.`,
      offence('no ttl in the create answer'),
    );
  } else if (ttl === requested) {
    p.find('requested-ttl-honoured', 'pass', `A requested ttl of ${requested} ms was honoured.`);
  } else {
    // Receivers may override it: used, that MAY is information, never a fault.
    p.broken(
      'requested-ttl-honoured',
      `A requested ttl of ${requested} ms was adjusted to ${ttl === null ? 'none (no expiry)' : `${ttl} ms`} and said in the answer (receivers may).`,
      offence(`ttl ${requested} ms asked, ${ttl === null ? 'none' : `${ttl} ms`} given`),
    );
  }
  // Gone at once is graded by read(), on the receiver's -32602 and the task's age only.
  const first = await p.read(subject);
  if (!first) return 'gone right after it was created';
  if (ttl !== undefined && first.ttl !== undefined && first.ttl !== ttl)
    p.broken(
      'requested-ttl-honoured',
      `The create answer said ttl ${ttl} ms, tasks/get says ${first.ttl} ms.`,
      offence(`ttl ${ttl} then ${first.ttl}`),
    );
  const effective = first.ttl ?? ttl;
  if (effective === null || effective === undefined) return 'no expiry to wait for';
  const wait = sentAt + effective + p.timing.expiryGraceMs - Date.now();
  if (effective > p.timing.maxExpiryWaitMs)
    return `ttl ${seconds(effective)}: expiry not waited for (the check waits ${seconds(p.timing.maxExpiryWaitMs)} at most)`;
  if (wait > 0) await p.sleep(wait);
  const later = await p.read(subject);
  if (!later) {
    p.find(
      'ttl-not-kept-beyond',
      'pass',
      `The task was gone (-32602) ${seconds(p.timing.expiryGraceMs)} after its ttl of ${effective} ms.`,
    );
    return 'purged after its ttl';
  }
  p.find(
    'ttl-not-kept-beyond',
    'info',
    `The task was still there ${seconds(p.timing.expiryGraceMs)} after its ttl of ${effective} ms (receivers may keep it a while).`,
  );
  return 'kept past its ttl';
}
