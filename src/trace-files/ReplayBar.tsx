import { useEffect, useRef, useState } from 'react';
import { FolderOpen, Pause, Play, X } from 'lucide-react';
import type { ReplaySpeed } from '../engine/messages';
import { useNow } from '../state/clock';
import { useReplay } from '../state/replay-store';
import { formatClock, formatDateTime, formatMs } from '../format/time';
import { Button, focusRing, narrowLabel } from '../ui/Button';
import { ErrorNote } from '../ui/Panel';
import {
  dismissTraceErrors,
  leaveReplay,
  openTraceFile,
  pauseReplay,
  playReplay,
  seekReplay,
  setReplaySpeed,
} from './open-trace';

const SPEEDS: Array<{ speed: ReplaySpeed; label: string }> = [
  { speed: 1, label: '1×' },
  { speed: 4, label: '4×' },
  { speed: 'instant', label: 'Instant' },
];

const SCRUB_STEP_MS = 50;

/** The recording's date and time, for the bar. */
function recordedAt(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? formatDateTime(ms) : iso.slice(0, 40);
}

/** The header's "Open trace": a file picker. */
export function OpenTraceButton() {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <Button
        variant="ghost"
        title="Open a trace file and replay it (no receiver is contacted); or drop one on the page"
        onClick={() => input.current?.click()}
        data-testid="open-trace"
      >
        <FolderOpen size={14} aria-hidden /> <span className={narrowLabel}>Open trace</span>
      </Button>
      <input
        ref={input}
        type="file"
        accept=".json,application/json"
        className="hidden"
        data-testid="open-trace-input"
        onChange={(event) => {
          const file = event.target.files?.[0];
          event.target.value = '';
          if (file) void openTraceFile(file);
        }}
      />
    </>
  );
}

function Scrubber() {
  const news = useReplay((s) => s.news);
  const info = useReplay((s) => s.info);
  const now = useNow();
  // While the person drags, the thumb follows the hand; the replay moves when it is let go.
  const [dragging, setDragging] = useState<number | null>(null);
  if (!info) return null;
  const start = info.startedAt;
  const end = news?.endedAt ?? info.endedAt;
  const at = dragging ?? Math.min(end, Math.max(start, now));
  const commit = () => {
    // The range snaps to its step from the start, so its last position may fall just short of the end.
    if (dragging !== null) void seekReplay(dragging > end - SCRUB_STEP_MS ? end : dragging);
    setDragging(null);
  };
  return (
    <div className="flex min-w-48 flex-1 items-center gap-2">
      <span
        className="text-xs whitespace-nowrap text-slate-600 tabular-nums dark:text-slate-300"
        data-testid="replay-elapsed"
      >
        {formatMs(Math.max(0, at - start))}
      </span>
      <input
        type="range"
        aria-label="Replay position"
        data-testid="replay-scrubber"
        min={start}
        max={end}
        step={SCRUB_STEP_MS}
        value={at}
        className={`h-1 min-w-24 flex-1 accent-sky-600 ${focusRing}`}
        onChange={(event) => setDragging(Number(event.target.value))}
        onPointerUp={commit}
        onKeyUp={commit}
        onBlur={commit}
      />
      <span className="text-xs whitespace-nowrap text-slate-500 tabular-nums" data-testid="replay-total">
        {formatMs(end - start)}
      </span>
      <span
        className="hidden text-xs whitespace-nowrap text-slate-500 tabular-nums lg:inline"
        title="The recording's clock"
      >
        {formatClock(at, { millis: true })}
      </span>
    </div>
  );
}

/**
 * Says, above everything, that what the page shows is a recording and that nothing is sent; holds play and
 * pause, the speeds and the scrubber. Also where a trace that could not be opened says why.
 */
export function ReplayBar() {
  const info = useReplay((s) => s.info);
  const news = useReplay((s) => s.news);
  const speed = useReplay((s) => s.speed);
  const errors = useReplay((s) => s.errors);
  const warnings = useReplay((s) => s.warnings);
  const opening = useReplay((s) => s.opening);
  return (
    <>
      {errors && (
        <div className="border-b border-red-200 px-3 py-2 dark:border-red-900" data-testid="trace-errors">
          <ErrorNote title="This trace cannot be replayed">
            <ul className="mt-1 list-disc pl-5 text-xs">
              {errors.slice(0, 20).map((line, i) => (
                <li key={i} className="[overflow-wrap:anywhere]">
                  {line}
                </li>
              ))}
            </ul>
            <Button variant="ghost" className="mt-1" onClick={dismissTraceErrors}>
              Dismiss
            </Button>
          </ErrorNote>
        </div>
      )}
      {opening && !info && <p className="px-3 py-1 text-xs text-slate-500">Opening the trace…</p>}
      {info && (
        <div
          className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-violet-200 bg-violet-50 px-3 py-1.5 text-sm dark:border-violet-900 dark:bg-violet-950/40"
          role="region"
          aria-label="Replay"
          data-testid="replay-bar"
          data-ended={news?.ended ? 'true' : 'false'}
        >
          <p className="min-w-0 [overflow-wrap:anywhere]" data-testid="replay-label">
            <strong>Replay</strong> of {info.receiverName ? `${info.receiverName} at ` : ''}
            <span className="font-mono text-xs">{info.receiverUrl.slice(0, 300)}</span> recorded{' '}
            {recordedAt(info.exportedAt)} — <strong>no receiver is contacted</strong>
          </p>
          <div className="flex items-center gap-1">
            {news?.playing ? (
              <Button variant="ghost" onClick={pauseReplay} title="Pause" data-testid="replay-pause">
                <Pause size={14} /> Pause
              </Button>
            ) : (
              <Button
                variant="ghost"
                onClick={playReplay}
                title={news?.ended ? 'Play again from the start' : 'Play'}
                data-testid="replay-play"
              >
                <Play size={14} /> {news?.ended ? 'Replay' : 'Play'}
              </Button>
            )}
            <div role="group" aria-label="Speed" className="flex">
              {SPEEDS.map((s) => (
                <Button
                  key={String(s.speed)}
                  variant={speed === s.speed ? 'primary' : 'ghost'}
                  aria-pressed={speed === s.speed}
                  onClick={() => setReplaySpeed(s.speed)}
                  data-testid={`replay-speed-${s.speed}`}
                >
                  {s.label}
                </Button>
              ))}
            </div>
          </div>
          <Scrubber />
          {news?.ended && (
            <span className="text-xs text-violet-700 dark:text-violet-300" data-testid="replay-ended">
              End of the recording
            </span>
          )}
          <Button variant="ghost" onClick={leaveReplay} title="Leave the replay and connect to a receiver">
            <X size={14} /> Leave replay
          </Button>
          {warnings && warnings.length > 0 && (
            <p className="w-full text-xs text-amber-700 dark:text-amber-400">
              {warnings.join('; ').slice(0, 1000)}
            </p>
          )}
        </div>
      )}
    </>
  );
}

/** Files dropped anywhere on the page are opened as traces; the page says so while one is held over it. */
export function TraceDropZone() {
  const [over, setOver] = useState(false);
  useEffect(() => {
    const hasFiles = (event: DragEvent) => event.dataTransfer?.types.includes('Files') ?? false;
    const onOver = (event: DragEvent) => {
      if (!hasFiles(event)) return;
      // Without this the browser would open the file itself, leaving the page.
      event.preventDefault();
      setOver(true);
    };
    const onLeave = (event: DragEvent) => {
      if (event.relatedTarget === null) setOver(false);
    };
    const onDrop = (event: DragEvent) => {
      setOver(false);
      const file = event.dataTransfer?.files[0];
      if (!file) return;
      event.preventDefault();
      void openTraceFile(file);
    };
    window.addEventListener('dragover', onOver);
    window.addEventListener('dragleave', onLeave);
    window.addEventListener('drop', onDrop);
    return () => {
      window.removeEventListener('dragover', onOver);
      window.removeEventListener('dragleave', onLeave);
      window.removeEventListener('drop', onDrop);
    };
  }, []);
  if (!over) return null;
  return (
    <div
      className="pointer-events-none fixed inset-0 z-40 flex items-center justify-center bg-sky-500/10 ring-4 ring-sky-500 ring-inset"
      data-testid="trace-drop-zone"
    >
      <p className="rounded bg-white px-4 py-2 text-sm shadow dark:bg-slate-900">Drop a trace to replay it</p>
    </div>
  );
}
