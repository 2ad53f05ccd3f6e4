import type { CSSProperties } from 'react';
import { useNow } from '../../state/clock';
import { localTaskTimes } from '../../tracker/ttl';
import { formatClock, formatMs } from '../../format/time';
import { buildTimeline, RESULT_NAME, type MarkKind, type PollStep } from '../../tracker/timeline-model';
import { useConnection } from '../../state/connection-store';
import { useTaskSnapshot } from '../hooks';
import { useTasks } from '../tasks-store';
import { statusFill } from './StatusBadge';
import type { TrackedTask } from '../../tracker/task-store';
import type { TaskRuleBreak } from '../../rules/task-judge';

const markLook: Record<MarkKind, { className: string; row: number; label: string }> = {
  poll: { className: 'h-3 w-px bg-slate-500 dark:bg-slate-400', row: 0, label: 'poll' },
  probe: { className: 'h-3 w-px bg-violet-500', row: 0, label: 'purge probe' },
  check: { className: 'h-3 w-px bg-fuchsia-500', row: 0, label: 'read by the check' },
  create: { className: 'h-3 w-1 bg-sky-500', row: 0, label: 'create' },
  list: { className: 'h-3 w-1 bg-slate-400', row: 0, label: 'tasks/list' },
  cancel: { className: 'h-3 w-1 bg-slate-700 dark:bg-slate-200', row: 0, label: 'cancel' },
  notification: { className: 'h-2 w-2 rotate-45 bg-violet-500', row: 1, label: 'push' },
  result: {
    className: 'h-2.5 w-2.5 rounded-full bg-green-600 ring-2 ring-white dark:ring-slate-950',
    row: 1,
    label: 'result',
  },
  error: { className: 'h-2.5 w-2.5 rounded-full bg-red-600', row: 1, label: 'error' },
  input: { className: 'h-2.5 w-2.5 bg-amber-500', row: 1, label: 'input asked / answered' },
  session: { className: 'h-4 w-0.5 bg-fuchsia-600', row: 0, label: 'session ended / known again' },
  progress: { className: 'h-1.5 w-1.5 rounded-full bg-sky-400', row: 1, label: 'progress' },
  log: { className: 'h-1.5 w-1.5 bg-slate-400', row: 1, label: 'log message' },
  ttl: { className: 'h-7 w-0 border-l-2 border-dashed border-rose-600', row: 0, label: 'TTL deadline' },
  purge: { className: 'h-7 w-1 bg-st-purged', row: 0, label: 'purged' },
  warning: {
    className: 'h-0 w-0 border-x-[5px] border-b-[8px] border-x-transparent border-b-amber-500',
    row: 1,
    label: 'warning',
  },
};

const LEGEND: readonly MarkKind[] = [
  'poll',
  'notification',
  'result',
  'progress',
  'input',
  'warning',
  'error',
];

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** A rule broken on this task: a red mark above the others, where the offending observation came. */
const RULE_MARK =
  'h-0 w-0 border-x-[6px] border-t-[10px] border-x-transparent border-t-red-600 dark:border-t-red-400';

/** Rules about the ttl: their mark is read against the deadline, so it is drawn where it lay. */
const TTL_RULES = new Set(['ttl-not-purged-early', 'ttl-not-kept-beyond']);

const ENDED_MIN_WIDTH = '4.5rem';

/** Diagonal stripes: time the task existed that nobody saw, never to be read as a status. */
const hatch: CSSProperties = {
  backgroundImage: 'repeating-linear-gradient(135deg, rgb(148 163 184 / 0.55) 0 4px, transparent 4px 8px)',
};

/**
 * The receiver's pollInterval as a step line under the bar, on a log scale between the smallest and the
 * largest it asked for, so a change from 250 ms to 2 s reads as a step and not as a line at the floor.
 */
function PollStepLine({ steps, x }: { steps: PollStep[]; x: (at: number) => number }) {
  if (steps.length === 0) return null;
  const values = steps.map((s) => Math.log(Math.max(1, s.interval)));
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  // Percent from the top: the longest interval highest, as a slower pace reads as "up" on a chart of waits.
  const y = (interval: number) =>
    hi === lo ? 50 : 85 - ((Math.log(Math.max(1, interval)) - lo) / (hi - lo)) * 70;
  return (
    <div className="space-y-0.5">
      <div
        className="relative h-10 rounded bg-slate-50 dark:bg-slate-900/60"
        role="img"
        aria-label={`pollInterval over time: ${steps.map((s) => formatMs(s.interval)).join(', then ')}`}
        data-testid="poll-steps"
      >
        {steps.map((step, i) => {
          const prev = steps[i - 1];
          const width = Math.max(0.5, x(step.end) - x(step.start));
          const left = Math.min(x(step.start), 100 - width);
          const top = y(step.interval);
          return (
            <div key={i}>
              {prev && (
                <span
                  aria-hidden
                  className="absolute w-0 border-l-2 border-sky-600 dark:border-sky-400"
                  style={{
                    left: `${left}%`,
                    top: `${Math.min(top, y(prev.interval))}%`,
                    height: `${Math.abs(top - y(prev.interval))}%`,
                  }}
                />
              )}
              <span
                className="absolute border-t-2 border-sky-600 dark:border-sky-400"
                style={{ left: `${left}%`, width: `${width}%`, top: `${top}%` }}
                title={`pollInterval ${formatMs(step.interval)} from ${formatClock(step.start, { millis: true })}`}
                data-testid="poll-step"
                data-interval={step.interval}
              />
              <span
                aria-hidden
                className={`absolute -translate-y-full px-1 text-[10px] whitespace-nowrap text-sky-700 tabular-nums dark:text-sky-300 ${left > 85 ? '-translate-x-full' : ''}`}
                style={{ left: `${left}%`, top: `${top}%` }}
              >
                {formatMs(step.interval)}
              </span>
            </div>
          );
        })}
      </div>
      <p className="text-[11px] text-slate-500">pollInterval asked for, over time</p>
    </div>
  );
}

/**
 * The status bar: a segment per status with its duration, the time before anyone looked hatched, a tick
 * per poll, marks for pushes, results, progress and warnings, the TTL deadline when it is near, and the
 * receiver's pollInterval as a step line.
 */
export function Timeline({
  task,
  breaks = [],
  onMark,
}: {
  task: TrackedTask;
  /** Rules the receiver broke on this task, marked where they were broken. */
  breaks?: readonly TaskRuleBreak[];
  /** A mark was clicked: the moment it stands for. */
  onMark?: (at: number) => void;
}) {
  const now = useNow();
  const snapshot = useTaskSnapshot(task.taskId);
  const offset = useTasks((s) => s.clockOffsetMs);
  const era = useConnection((s) => s.era ?? s.support?.era ?? '2025-11-25');
  // Where the deadline lay is the point for a purged task and for a ttl rule broken. Otherwise the axis is
  // the task's run (created to its end, or now), and a deadline far past it is said apart, not drawn to scale.
  const deadlineReach =
    task.lifecycle === 'purged' || breaks.some((b) => TTL_RULES.has(b.id)) ? Infinity : undefined;
  const model = buildTimeline(task, task.lifecycle === 'live' ? now : 0, {
    ...localTaskTimes(snapshot, offset),
    deadlineReach,
    resultName: RESULT_NAME[era],
  });
  const { view, unobserved } = model;
  const span = Math.max(1, view.end - view.start);
  const pct = (at: number) => Math.min(100, Math.max(0, ((at - view.start) / span) * 100));
  const x = (at: number) => `${pct(at)}%`;
  const lastSegment = model.segments.at(-1);
  const deadline = model.marks.find((m) => m.kind === 'ttl');
  // Waiting for the purge: where now stands against the deadline it waits for.
  const waitingNow =
    task.lifecycle === 'terminal' && deadline && now > view.start && now < view.end ? now : undefined;
  return (
    <div className="space-y-1" data-testid="timeline">
      <div className="relative h-6 overflow-hidden rounded bg-slate-100 dark:bg-slate-900">
        {unobserved && (
          <div
            className="absolute inset-y-0 border-r border-slate-400"
            style={{
              ...hatch,
              left: x(unobserved.drawnStart),
              width: `calc(${x(unobserved.end)} - ${x(unobserved.drawnStart)})`,
            }}
            title={`Not observed: created ${formatClock(unobserved.start, { millis: true })}, first observed ${formatClock(unobserved.end, { millis: true })} (${formatMs(unobserved.end - unobserved.start)}${unobserved.drawnStart > unobserved.start ? ', drawn shortened' : ''}). What it did then is unknown.`}
            data-testid="unobserved"
          >
            <span className="absolute inset-0 truncate px-1 text-[10px] leading-6 font-medium text-slate-600 dark:text-slate-300">
              not observed {formatMs(unobserved.end - unobserved.start)}
              {unobserved.drawnStart > unobserved.start ? ' (shortened)' : ''}
            </span>
          </div>
        )}
        {model.segments.map((s, i) => {
          // A terminal status has no length of its own: its span is only how long after the end we looked.
          const ended = TERMINAL.has(s.status) && s === lastSegment;
          const label = ended ? s.status : `${s.status.replace('_', ' ')} ${formatMs(s.end - s.start)}`;
          // An ending seen once is a point: it gets room for its name, drawn back from where it was seen.
          const place = ended
            ? {
                left: `max(0px, min(${x(s.start)}, calc(${x(s.end)} - ${ENDED_MIN_WIDTH})))`,
                width: `max(${ENDED_MIN_WIDTH}, calc(${x(s.end)} - ${x(s.start)}))`,
              }
            : { left: x(s.start), width: `max(3px, calc(${x(s.end)} - ${x(s.start)}))` };
          return (
            <div
              key={i}
              className={`absolute inset-y-0 ${statusFill[s.status]} ${s === lastSegment && task.lifecycle === 'live' ? 'opacity-80' : ''}`}
              style={place}
              title={
                ended
                  ? `${s.status}, first seen ${formatClock(s.start, { millis: true })}`
                  : `${s.status}: ${formatMs(s.end - s.start)} from ${formatClock(s.start, { millis: true })}`
              }
              data-status={s.status}
            >
              <span className="absolute inset-0 truncate px-1 text-[10px] leading-6 font-medium text-white">
                {label}
              </span>
            </div>
          );
        })}
        {deadline && (
          <div
            aria-hidden
            className="absolute inset-y-0 w-0 border-l-2 border-dashed border-rose-600"
            style={{ left: x(deadline.at) }}
          />
        )}
        {task.lifecycle === 'live' && (
          <div
            className="absolute inset-y-0 w-0.5 -translate-x-full animate-pulse bg-slate-900 dark:bg-white"
            style={{ left: x(model.end) }}
            title="now"
          />
        )}
        {waitingNow !== undefined && (
          <div
            className="absolute inset-y-0 w-0.5 bg-slate-900 dark:bg-white"
            style={{ left: x(waitingNow) }}
            title="now: the task has ended, and waits for its ttl"
            data-testid="timeline-now"
          />
        )}
      </div>
      {/* A click on a mark finds its moment in the observations (the table is the keyboard's way there). */}
      <div className="relative h-9" aria-label="Timeline marks">
        {model.marks.map((m, i) => {
          const look = markLook[m.kind];
          return (
            <span
              key={i}
              className="absolute -translate-x-1/2 cursor-pointer p-0.5"
              style={{ left: x(m.at), top: look.row === 0 ? 8 : 22 }}
              title={m.detail}
              data-mark={m.kind}
              onClick={() => onMark?.(m.at)}
            >
              <span className={`block ${look.className}`} />
            </span>
          );
        })}
        {breaks.map(({ at, ...b }, i) =>
          at === undefined ? null : (
            <span
              key={`rule-${i}`}
              className="absolute top-0 -translate-x-1/2 cursor-pointer p-0.5"
              style={{ left: x(at) }}
              title={`${b.strength} broken: ${b.title} — ${b.detail}`}
              data-mark="rule"
              data-rule={b.id}
              onClick={() => onMark?.(at)}
            >
              <span className={`block ${RULE_MARK}`} />
            </span>
          ),
        )}
      </div>
      {model.deadlineBeyond !== undefined && (
        <p className="text-right text-[11px] text-rose-700 dark:text-rose-300" data-testid="ttl-beyond">
          TTL deadline → {formatClock(model.deadlineBeyond, { millis: true })},{' '}
          {formatMs(model.deadlineBeyond - view.end)} past the right edge
          {task.lifecycle === 'terminal' && now < model.deadlineBeyond
            ? ` (the receiver may purge it in ${formatMs(model.deadlineBeyond - now)})`
            : ''}
        </p>
      )}
      <PollStepLine steps={model.pollSteps} x={pct} />
      <div className="flex flex-wrap gap-3 text-[11px] text-slate-600 dark:text-slate-300">
        {LEGEND.map((k) => (
          <span key={k} className="flex items-center gap-1">
            <span className={`relative inline-block ${markLook[k].className}`} /> {markLook[k].label}
          </span>
        ))}
        {deadline && (
          <span className="flex items-center gap-1">
            <span className="inline-block h-3 w-0 border-l-2 border-dashed border-rose-600" /> TTL deadline
          </span>
        )}
        {task.lifecycle === 'purged' && (
          <span className="flex items-center gap-1">
            <span className={`inline-block ${markLook.purge.className} h-3`} /> purged
          </span>
        )}
        {breaks.length > 0 && (
          <span className="flex items-center gap-1">
            <span className={`inline-block ${RULE_MARK}`} /> rule broken
          </span>
        )}
        {unobserved && (
          <span className="flex items-center gap-1">
            <span className="inline-block h-3 w-4 rounded-sm" style={hatch} /> not observed
          </span>
        )}
        <span className="ml-auto">
          {formatMs(span)} shown, {formatClock(view.start, { millis: true })} to{' '}
          {formatClock(view.end, { millis: true })}
        </span>
      </div>
    </div>
  );
}
