import { useNow } from '../../state/clock';
import { formatMs } from '../core/ttl';
import { buildTimeline, type MarkKind } from '../core/timeline-model';
import { statusFill } from './StatusBadge';
import type { TrackedTask } from '../core/store';

const markLook: Record<MarkKind, { className: string; row: number; label: string }> = {
  poll: { className: 'h-3 w-px bg-slate-500 dark:bg-slate-400', row: 0, label: 'poll' },
  probe: { className: 'h-3 w-px bg-violet-500', row: 0, label: 'purge probe' },
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
  warning: {
    className: 'h-0 w-0 border-x-[5px] border-b-[8px] border-x-transparent border-b-amber-500',
    row: 1,
    label: 'warning',
  },
};

/** The status bar: a segment per status with its duration, a tick per poll, marks for pushes, results, warnings. */
export function Timeline({ task }: { task: TrackedTask }) {
  const now = useNow();
  const model = buildTimeline(task, task.lifecycle === 'live' ? now : 0);
  const span = model.end - model.start;
  const x = (at: number) => `${Math.min(100, Math.max(0, ((at - model.start) / span) * 100))}%`;
  return (
    <div className="space-y-1" data-testid="timeline">
      <div className="relative h-6 overflow-hidden rounded bg-slate-100 dark:bg-slate-900">
        {model.segments.map((s, i) => (
          <div
            key={i}
            className={`absolute inset-y-0 ${statusFill[s.status]} ${s === model.segments.at(-1) && task.lifecycle === 'live' ? 'opacity-80' : ''}`}
            style={{ left: x(s.start), width: `max(3px, calc(${x(s.end)} - ${x(s.start)}))` }}
            title={`${s.status}: ${formatMs(s.end - s.start)}`}
            data-status={s.status}
          >
            <span className="absolute inset-0 truncate px-1 text-[10px] leading-6 font-medium text-white">
              {s.status.replace('_', ' ')} {formatMs(s.end - s.start)}
            </span>
          </div>
        ))}
        {task.lifecycle === 'live' && (
          <div
            className="absolute inset-y-0 right-0 w-0.5 animate-pulse bg-slate-900 dark:bg-white"
            title="now"
          />
        )}
      </div>
      <div className="relative h-7" aria-label="Timeline marks">
        {model.marks.map((m, i) => {
          const look = markLook[m.kind];
          return (
            <span
              key={i}
              className={`absolute -translate-x-1/2 ${look.className}`}
              style={{ left: x(m.at), top: look.row === 0 ? 0 : 14 }}
              title={m.detail}
              data-mark={m.kind}
            />
          );
        })}
      </div>
      <div className="flex flex-wrap gap-3 text-[11px] text-slate-500">
        {(['poll', 'notification', 'result', 'input', 'warning', 'error'] as const).map((k) => (
          <span key={k} className="flex items-center gap-1">
            <span className={`relative inline-block ${markLook[k].className}`} /> {markLook[k].label}
          </span>
        ))}
        <span className="ml-auto">{formatMs(span)} shown</span>
      </div>
    </div>
  );
}
