import { hasResult } from '../mcp';
import { shortId, type TaskPoller } from './poller';
import type { ResultFetcher } from './result-fetcher';
import { appendEntry, updateTask, type TasksStore, type TrackedTask } from './task-store';
import { formatClock } from '../format/time';
import type { Clock } from './tracker-types';

export interface SessionLifecycleDeps {
  store: TasksStore;
  clock: Clock;
  /** The receiver's current session id (none for sessionless receivers, or between sessions). */
  sessionId: () => string | undefined;
  poller: Pick<TaskPoller, 'schedule' | 'scheduleProbe' | 'poll' | 'stop'>;
  results: Pick<ResultFetcher, 'fetch' | 'openForInput'>;
  openResultForInput: () => boolean;
}

/**
 * Which session each task belongs to, and what a session coming or going means for it. A receiver may keep
 * tasks across sessions, a tab may come back on a new one after an outage, and history brings back tasks of
 * sessions long gone: every one of those decisions (poll again, ask once, leave alone, mark ended, adopt) is
 * taken here, apart from the tracker's merging of answers, so the rules can be read in one place.
 */
export class SessionLifecycle {
  /** Ids pasted while no session was up (during an outage): the next session's, not another's. */
  private readonly unsessioned = new Set<string>();

  constructor(private readonly deps: SessionLifecycleDeps) {}

  /** A task is followed from now on (the tracker's track). */
  tracked(taskId: string, origin: TrackedTask['origin']): void {
    // Only a pasted id: a created task was sent in a session (one lost while its answer came is not the next
    // one's), and a sessionless receiver's tasks never need adopting.
    if (origin === 'manual' && this.deps.sessionId() === undefined) this.unsessioned.add(taskId);
  }

  /** The task was forgotten entirely. */
  forget(taskId: string): void {
    this.unsessioned.delete(taskId);
  }

  /**
   * A session is up (the first, a resumed one, or a new one after the last was lost). Live tasks of this very
   * session are polled again; those of `ended` (this tab's previous session) are asked about once, since a
   * receiver may keep tasks across sessions; those of any other session are shown but left alone.
   */
  ready(ended?: string): void {
    const { store, poller, results } = this.deps;
    const current = this.deps.sessionId();
    const now = this.deps.clock.now();
    if (current !== undefined) {
      for (const taskId of this.unsessioned)
        if (store.getState().tasks.get(taskId)?.sessionId === undefined)
          updateTask(store, taskId, () => ({ sessionId: current }));
    }
    // A sessionless receiver never gets a session: its tasks are all of the one it has, nothing to adopt.
    this.unsessioned.clear();
    for (const task of [...store.getState().tasks.values()]) {
      if (task.sessionId === current) {
        if (task.otherSession) updateTask(store, task.taskId, () => ({ otherSession: undefined }));
        if (task.lifecycle === 'live' && !task.dormant) {
          poller.schedule(task.taskId);
          // Its open tasks/result went with the page (or the outage): open it again so the question comes back.
          if (task.status === 'input_required' && this.deps.openResultForInput())
            results.openForInput(task.taskId);
        }
        if (task.lifecycle !== 'terminal') continue;
        poller.scheduleProbe(task.taskId);
        // The page went away while its result was on its way: ask again in the same session.
        if (hasResult(task.status) && task.result.state === 'none') results.fetch(task.taskId);
        continue;
      }
      if (ended !== undefined && task.sessionId === ended) {
        this.markEnded(task.taskId, now);
        if (task.lifecycle === 'live' && !task.dormant) void poller.poll(task.taskId);
        continue;
      }
      if (!task.otherSession && task.sessionEndedAt === undefined)
        updateTask(store, task.taskId, () => ({ otherSession: true, nextPollInMs: null }));
    }
  }

  /**
   * The session ended: lost (a new one follows, see ready) or ended by the person (final: nothing follows, so
   * live tasks are over as far as this page can tell). Timers stop; the records stay.
   */
  ended(options: { final: boolean }): void {
    const { store, poller } = this.deps;
    const current = this.deps.sessionId();
    const now = this.deps.clock.now();
    for (const task of [...store.getState().tasks.values()]) {
      if (task.sessionId !== current || task.otherSession) continue;
      poller.stop(task.taskId);
      if (current !== undefined) this.markEnded(task.taskId, now);
      if (options.final && task.lifecycle === 'live')
        updateTask(store, task.taskId, () => ({ lifecycle: 'session-ended' }));
    }
  }

  /**
   * A task from another session: ask about it in this one (the receiver may know it here too). It stays the
   * other session's until the receiver answers for it here, so a refusal never says that session ended.
   */
  follow(taskId: string): void {
    const { store } = this.deps;
    const task = store.getState().tasks.get(taskId);
    if (!task || (task.lifecycle !== 'live' && task.lifecycle !== 'session-ended')) return;
    updateTask(store, taskId, () => ({ lifecycle: 'live', dormant: false }));
    void this.deps.poller.poll(taskId);
  }

  /**
   * The receiver answered about this task in the current session: one carried over from another session (or
   * given up as "session ended") is this session's from now on, and live again. True when it moved here.
   */
  knownHere(taskId: string, at: number): boolean {
    const { store } = this.deps;
    const current = this.deps.sessionId();
    const task = store.getState().tasks.get(taskId);
    if (!task || (task.sessionId === current && task.lifecycle !== 'session-ended')) return false;
    updateTask(store, taskId, (t) => ({
      ...appendEntry(t, {
        kind: 'session',
        at,
        phase: 'known-again',
        detail: `The receiver knows this task in session ${shortId(current)}: followed there.`,
      }),
      sessionId: current,
      otherSession: undefined,
      sessionEndedAt: undefined,
      lifecycle: t.lifecycle === 'session-ended' ? 'live' : t.lifecycle,
    }));
    return true;
  }

  private markEnded(taskId: string, at: number): void {
    updateTask(this.deps.store, taskId, (task) =>
      task.sessionEndedAt !== undefined
        ? {}
        : {
            ...appendEntry(task, {
              kind: 'session',
              at,
              phase: 'ended',
              detail: `Session ${shortId(task.sessionId)} ended at ${formatClock(at)}.`,
            }),
            sessionEndedAt: at,
            nextPollInMs: null,
          },
    );
  }
}
