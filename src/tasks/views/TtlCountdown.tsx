import { useNow } from '../../state/clock';
import { ttlPhase } from '../../tracker/ttl';
import { NOTABLE_CLOCK_OFFSET_MS } from '../../tracker/clock-offset';
import { formatClock, formatCountdown, formatMs } from '../../format/time';
import type { TaskSnapshot } from '../../mcp';
import { useTasks } from '../tasks-store';

interface Props {
  snapshot: TaskSnapshot | undefined;
  purged: boolean;
  /** Its session ended while it was live: nothing is counting any more, here or at the receiver. */
  ended?: boolean;
  /** Compact for list rows; full shows the explanation and the clock offset. */
  compact?: boolean;
}

export function TtlCountdown({ snapshot, purged, ended = false, compact = false }: Props) {
  const now = useNow();
  const offset = useTasks((s) => s.clockOffsetMs);
  const phase = ttlPhase(snapshot, now, offset, purged);
  let text: string;
  let tone = 'text-slate-600 dark:text-slate-300';
  if (ended && phase.kind !== 'purged')
    return (
      <span
        className="text-slate-600 dark:text-slate-300"
        data-testid={compact ? undefined : 'ttl-countdown'}
        title="Its session ended while it was live: the receiver that held it is gone, so its ttl counts no more"
      >
        {compact ? 'session ended' : 'none left — its session ended'}
      </span>
    );
  switch (phase.kind) {
    case 'purged':
      text = compact ? 'purged' : 'purged — the receiver no longer has this task';
      tone = 'text-violet-600 dark:text-violet-400';
      break;
    case 'none':
      text = 'no expiry';
      break;
    case 'forever':
      text = compact ? 'effectively none' : `ttl ${phase.ttl.toPrecision(3)} ms — effectively none`;
      break;
    case 'unknown':
      text = compact ? '—' : 'unknown (no usable ttl or createdAt)';
      break;
    case 'expired':
      text = compact ? 'expired' : 'expired — the receiver may purge it now';
      tone = 'text-amber-600 dark:text-amber-400';
      break;
    case 'counting':
      // In the page's one duration form (52 s, 3 min 24 s), ticking by whole seconds.
      text = formatCountdown(phase.remainingMs);
      if (phase.remainingMs < 10_000) tone = 'text-amber-600 dark:text-amber-400';
  }
  return (
    <span
      className={`tabular-nums ${tone}`}
      data-testid={compact ? undefined : 'ttl-countdown'}
      title={
        phase.kind === 'counting' || phase.kind === 'expired'
          ? `${text}: ttl ${formatMs(snapshot?.ttl ?? 0)} from createdAt, ${phase.kind === 'expired' ? 'ended' : 'ends'} ${formatClock(phase.expiresAtLocal)}`
          : text
      }
    >
      {text}
      {!compact && Math.abs(offset) >= NOTABLE_CLOCK_OFFSET_MS && (
        <span
          className="ml-2 text-xs text-slate-500"
          title="Estimated from the receiver's timestamps against local receipt times"
        >
          (receiver clock {offset > 0 ? 'ahead' : 'behind'} by {formatMs(Math.abs(offset))}, corrected)
        </span>
      )}
    </span>
  );
}
