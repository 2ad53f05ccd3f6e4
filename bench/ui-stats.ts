/** bench:ui's arithmetic over the receiver's log: poll gaps, poll rates, result latency, polls after terminal. */
import { POLL_INTERVAL_MS, isTerminalCode, type ReceiverLog } from './live-receiver';

export const quantile = (sorted: readonly number[], q: number): number =>
  sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;

const SPREAD_BUCKET_MS = 2000;

const sortNumbers = (values: number[]) => values.sort((a, b) => a - b);

export interface PollFigures {
  /** gap ÷ pollInterval between successive tasks/get of a live task, the earlier one inside the window */
  gapRatios: number[];
  /** the same, only gaps that begin and end while every task is live (one load, so their spread is fairness) */
  gapRatiosAllLive: number[];
  /**
   * each gap ÷ the median gap of those beginning in the same 2 s: the scheduler's fairness at whatever load the
   * moment has (the load falls as tasks complete, and the drawer's phase slows every poll alike)
   */
  gapSpread: number[];
  /** tasks live at the window's start that got no tasks/get inside the window (before their terminal answer) */
  neverPolled: number;
  /** tasks/get per second from the window's start until the first task completed (null: none of it was left) */
  pollsPerSecAllLive: number | null;
  allLiveSeconds: number;
  pollsPerSecWindow: number;
  /**
   * ms from the moment the receiver first told the page a task completed (its answer to a tasks/get, or the
   * push on the notification stream, whichever came first) to the arrival of the task's tasks/result
   */
  resultLatencies: number[];
  /** completion told by a poll or a push, but no tasks/result arrived */
  resultsMissing: number;
  /** tasks that completed on the receiver before the window ended but neither a poll nor a push told it */
  completionsUnseen: number;
  /** tasks/get arriving after the receiver had answered one with a terminal status for that task */
  pollsAfterTerminal: number;
  tasksPolledAfterTerminal: number;
  unknownTaskRequests: number;
}

/** Reads the log between `from` and `to` (receiver clock, ms). */
export function analyse(log: ReceiverLog, from: number, to: number): PollFigures {
  const n = log.taskIds.length;
  const gets: number[][] = Array.from({ length: n }, () => []);
  const firstResult = new Float64Array(n).fill(Infinity);
  let unknown = 0;
  for (let i = 0; i < log.kind.length; i++) {
    const task = log.task[i]!;
    if (task < 0) {
      unknown++;
      continue;
    }
    if (log.kind[i] === 0) gets[task]!.push(i);
    else firstResult[task] = Math.min(firstResult[task]!, log.arrivedAt[i]!);
  }

  const gapRatios: number[] = [];
  const gapRatiosAllLive: number[] = [];
  /** (start, ratio) of every gap, for the spread within each moment */
  const gapsAt: [number, number][] = [];
  const resultLatencies: number[] = [];
  let neverPolled = 0;
  let resultsMissing = 0;
  let completionsUnseen = 0;
  let pollsAfterTerminal = 0;
  let tasksPolledAfterTerminal = 0;
  let getsInWindow = 0;
  let getsAllLive = 0;
  const firstCompletion = Math.min(...log.completesAt);
  const allLiveEnd = Math.min(to, firstCompletion);

  for (let task = 0; task < n; task++) {
    const entries = gets[task]!.sort((a, b) => log.arrivedAt[a]! - log.arrivedAt[b]!);
    let terminalAnsweredAt = Infinity;
    let completedAnsweredAt = Infinity;
    let polledInWindow = false;
    let after = 0;
    for (let k = 0; k < entries.length; k++) {
      const i = entries[k]!;
      const arrived = log.arrivedAt[i]!;
      const status = log.status[i]!;
      if (arrived >= from && arrived < to) getsInWindow++;
      if (arrived >= from && arrived < allLiveEnd) getsAllLive++;
      if (arrived > terminalAnsweredAt) after++;
      else if (arrived >= from && arrived < to) polledInWindow = true;
      if (isTerminalCode(status)) {
        terminalAnsweredAt = Math.min(terminalAnsweredAt, log.answeredAt[i]!);
        if (status === 1) completedAnsweredAt = Math.min(completedAnsweredAt, log.answeredAt[i]!);
        continue;
      }
      if (arrived < from || arrived >= to) continue;
      const next = entries[k + 1];
      if (next === undefined) continue;
      const ratio = (log.arrivedAt[next]! - arrived) / POLL_INTERVAL_MS;
      gapRatios.push(ratio);
      gapsAt.push([arrived, ratio]);
      if (log.arrivedAt[next]! < allLiveEnd) gapRatiosAllLive.push(ratio);
    }
    if (after > 0) {
      pollsAfterTerminal += after;
      tasksPolledAfterTerminal++;
    }
    if (!polledInWindow && log.completesAt[task]! > from) neverPolled++;
    const toldAt = Math.min(completedAnsweredAt, log.pushedAt[task] ?? Infinity);
    if (toldAt < Infinity) {
      if (firstResult[task]! < Infinity) resultLatencies.push(firstResult[task]! - toldAt);
      else resultsMissing++;
    } else if (log.completesAt[task]! < to) completionsUnseen++;
  }

  const gapSpread: number[] = [];
  const buckets = new Map<number, number[]>();
  for (const [at, ratio] of gapsAt) {
    const key = Math.floor((at - from) / SPREAD_BUCKET_MS);
    const bucket = buckets.get(key) ?? [];
    bucket.push(ratio);
    buckets.set(key, bucket);
  }
  for (const ratios of buckets.values()) {
    const median = quantile(sortNumbers(ratios), 0.5);
    for (const ratio of ratios) gapSpread.push(ratio / median);
  }

  const allLiveSeconds = Math.max(0, (allLiveEnd - from) / 1000);
  return {
    gapRatios: sortNumbers(gapRatios),
    gapRatiosAllLive: sortNumbers(gapRatiosAllLive),
    gapSpread: sortNumbers(gapSpread),
    neverPolled,
    pollsPerSecAllLive: allLiveSeconds >= 1 ? getsAllLive / allLiveSeconds : null,
    allLiveSeconds,
    pollsPerSecWindow: getsInWindow / ((to - from) / 1000),
    resultLatencies: sortNumbers(resultLatencies),
    resultsMissing,
    completionsUnseen,
    pollsAfterTerminal,
    tasksPolledAfterTerminal,
    unknownTaskRequests: unknown,
  };
}
