import type { TrackedTask } from '../../tracker/task-store';
import { formatClock } from '../../format/time';

type Progress = NonNullable<TrackedTask['progress']>;

/** A share when the receiver gave a usable total; otherwise the progress is a count with no end known. */
export function progressShare(p: Pick<Progress, 'progress' | 'total'>): number | undefined {
  if (p.total === undefined || !Number.isFinite(p.total) || p.total <= 0) return undefined;
  return Math.min(1, Math.max(0, p.progress / p.total));
}

/**
 * notifications/progress as a bar: determinate when the receiver gave a total, indeterminate (no
 * aria-valuenow, a moving fill) when it did not, with its message. `compact` for task rows.
 */
export function ProgressBar({
  progress,
  compact = false,
  live = true,
}: {
  progress: Progress;
  compact?: boolean;
  /** Whether the task still runs: an indeterminate bar of an ended task stops moving. */
  live?: boolean;
}) {
  const share = progressShare(progress);
  const count = share === undefined ? `${progress.progress}` : `${progress.progress}/${progress.total ?? ''}`;
  const text = `${count}${progress.message ? ` — ${progress.message}` : ''}`;
  return (
    <div
      className={`flex min-w-0 items-center gap-2 ${compact ? 'text-[10px]' : 'text-xs'}`}
      data-testid={compact ? 'row-progress' : 'task-progress'}
      data-stale={progress.restored ? 'true' : undefined}
      title={`Progress ${text}, reported ${formatClock(progress.at, { millis: true })}${progress.restored ? ' (before this page loaded)' : ''}`}
    >
      <div
        role="progressbar"
        aria-label="Task progress"
        aria-valuemin={0}
        aria-valuemax={share === undefined ? undefined : progress.total}
        aria-valuenow={share === undefined ? undefined : progress.progress}
        aria-valuetext={text}
        className={`relative shrink-0 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-800 ${compact ? 'h-1.5 w-14' : 'h-2 w-48'}`}
      >
        {share === undefined ? (
          <div
            className={`absolute inset-y-0 left-0 w-1/3 rounded-full bg-sky-500 ${live ? 'animate-pulse' : 'opacity-60'}`}
          />
        ) : (
          <div
            className={`absolute inset-y-0 left-0 rounded-full transition-[width] duration-300 ${progress.restored ? 'bg-slate-400' : 'bg-sky-500'}`}
            style={{ width: `${share * 100}%` }}
          />
        )}
      </div>
      <span className="shrink-0 text-slate-600 tabular-nums dark:text-slate-300">{count}</span>
      {progress.message && (
        <span className="min-w-0 truncate text-slate-500" data-testid="progress-message">
          {progress.message}
        </span>
      )}
    </div>
  );
}
