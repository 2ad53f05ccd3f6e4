import type { ReactNode } from 'react';
import { CircleCheck, CircleDashed, CircleX, Loader, Square } from 'lucide-react';
import type { ActiveCheckState, ActiveCheckStep } from '../rules/report-types';
import { Button } from '../ui/Button';
import { formatClock } from '../format/time';
import { stopCheck } from './actions';

const STEP_LOOK: Record<ActiveCheckStep['state'], { icon: ReactNode; text: string }> = {
  pending: { icon: <CircleDashed size={13} aria-hidden />, text: 'text-slate-500' },
  running: {
    icon: <Loader size={13} className="animate-spin" aria-hidden />,
    text: 'text-sky-700 dark:text-sky-400',
  },
  done: { icon: <CircleCheck size={13} aria-hidden />, text: 'text-emerald-700 dark:text-emerald-400' },
  skipped: { icon: <CircleDashed size={13} aria-hidden />, text: 'text-slate-500' },
  stopped: { icon: <Square size={13} aria-hidden />, text: 'text-amber-700 dark:text-amber-400' },
  error: { icon: <CircleX size={13} aria-hidden />, text: 'text-red-700 dark:text-red-400' },
};

/** The active check's steps as they run, with Stop while it runs. */
export function CheckProgress({ check }: { check: ActiveCheckState }) {
  const total = check.steps.length;
  const settled = check.steps.filter((s) => s.state !== 'pending' && s.state !== 'running').length;
  const percent = total === 0 ? 0 : Math.round((settled / total) * 100);
  return (
    <section
      aria-label="Active check"
      className="space-y-2 rounded border border-slate-200 p-3 dark:border-slate-700"
      data-testid="check-panel"
    >
      <div className="flex flex-wrap items-center gap-3">
        <h3 className="text-xs font-semibold tracking-wide text-slate-500 uppercase">Active check</h3>
        <span className="text-sm" data-testid="check-status">
          {check.running
            ? `Running: ${settled} of ${total} steps`
            : check.stopped
              ? `Stopped after ${settled} of ${total} steps`
              : `Finished${check.endedAt ? ` ${formatClock(check.endedAt)}` : ''}`}
        </span>
        {check.running && (
          <Button variant="danger" onClick={stopCheck} data-testid="stop-check">
            <Square size={13} /> Stop
          </Button>
        )}
      </div>
      <div
        role="progressbar"
        aria-label="Active check progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        className="h-1.5 overflow-hidden rounded bg-slate-200 dark:bg-slate-800"
        data-testid="check-progress"
      >
        <div
          className={`h-full transition-[width] ${check.stopped ? 'bg-amber-500' : 'bg-sky-500'}`}
          style={{ width: `${percent}%` }}
        />
      </div>
      <ol className="space-y-0.5 text-sm">
        {check.steps.map((step) => (
          <li key={step.id} className="flex gap-2" data-testid="check-step" data-state={step.state}>
            <span className={`mt-0.5 ${STEP_LOOK[step.state].text}`}>{STEP_LOOK[step.state].icon}</span>
            <span>
              {step.title} <span className="text-xs text-slate-500">({step.state})</span>
              {step.note && (
                <span className="block text-xs text-slate-500 [overflow-wrap:anywhere]">{step.note}</span>
              )}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
