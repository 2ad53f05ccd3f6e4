import { lazy, Suspense, useRef, useState } from 'react';
import { ArrowDownLeft, ArrowUpRight, ChevronDown, ChevronUp, Trash2 } from 'lucide-react';
import { Button, focusRing } from '../ui/Button';
import { restoreFocus } from '../ui/keymap';
import { useEscapeLayer, useListNavigation, useShortcut } from '../ui/useKeymap';
import { formatClock } from '../tasks/core/ttl';
import { useTraffic } from './store';
import type { TrafficEvent } from '../mcp';

const JsonTree = lazy(() => import('../ui/JsonTree'));

const kindColour: Record<TrafficEvent['kind'], string> = {
  request: 'text-sky-600 dark:text-sky-400',
  response: 'text-green-600 dark:text-green-400',
  error: 'text-red-600 dark:text-red-400',
  'http-error': 'text-red-600 dark:text-red-400',
  notification: 'text-violet-600 dark:text-violet-400',
};

function Row({ event, open, onToggle }: { event: TrafficEvent; open: boolean; onToggle: () => void }) {
  return (
    <>
      <tr
        className={`cursor-pointer border-b border-slate-100 align-top hover:bg-slate-50 dark:border-slate-900 dark:hover:bg-slate-900 ${open ? 'bg-slate-50 dark:bg-slate-900' : ''}`}
        onClick={onToggle}
      >
        <td className="px-2 py-0.5 text-slate-500 tabular-nums">
          {/* The row opens on a click anywhere; this button makes it reachable and operable by keyboard. */}
          <button
            type="button"
            onClick={(e) => {
              e.stopPropagation();
              onToggle();
            }}
            aria-expanded={open}
            aria-label={`${open ? 'Close' : 'Open'} message ${event.seq}: ${event.kind} ${event.method ?? ''}`}
            className={`rounded tabular-nums ${focusRing}`}
            data-testid="traffic-time"
            data-keynav-item
          >
            {formatClock(event.wallTime, { millis: true })}
          </button>
        </td>
        <td className="px-1">
          {event.direction === 'out' ? (
            <ArrowUpRight size={12} className="text-sky-500" />
          ) : (
            <ArrowDownLeft size={12} className="text-green-500" />
          )}
        </td>
        <td className={`px-2 ${kindColour[event.kind]}`}>{event.kind}</td>
        <td className="px-2 font-mono">{event.method ?? ''}</td>
        <td className="px-2 font-mono text-slate-500">{event.id ?? ''}</td>
        <td className="px-2 text-slate-500 tabular-nums">{event.httpStatus ?? ''}</td>
        <td className="px-2 text-right text-slate-500 tabular-nums">{event.bytes} B</td>
        <td className="px-2 text-right text-slate-500 tabular-nums">
          {event.latencyMs !== undefined ? `${Math.round(event.latencyMs)} ms` : ''}
        </td>
      </tr>
      {open && (
        <tr>
          <td colSpan={8} className="px-2 pb-2">
            <Suspense
              fallback={<pre className="text-xs">{JSON.stringify(event.message).slice(0, 2000)}</pre>}
            >
              <JsonTree value={event.message} expanded />
            </Suspense>
          </td>
        </tr>
      )}
    </>
  );
}

/** The log itself: mounted only while the drawer is open, so a closed drawer costs nothing per message. */
function TrafficLog() {
  const [expanded, setExpanded] = useState<number | null>(null);
  const events = useTraffic((s) => s.events);
  // Up/down move through the messages, as through the tool and task lists.
  const listRef = useListNavigation();
  return (
    <div className="h-56 overflow-y-auto font-mono text-[11px]">
      <table className="w-full">
        <tbody ref={listRef}>
          {events
            .slice(-300)
            .reverse()
            .map((event) => (
              <Row
                key={event.seq}
                event={event}
                open={expanded === event.seq}
                onToggle={() => setExpanded((e) => (e === event.seq ? null : event.seq))}
              />
            ))}
        </tbody>
      </table>
    </div>
  );
}

export function TrafficDrawer() {
  const [open, setOpen] = useState(false);
  const total = useTraffic((s) => s.total);
  const clear = useTraffic((s) => s.clear);
  const sectionRef = useRef<HTMLElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  useEscapeLayer(
    open,
    () => {
      restoreFocus(sectionRef.current, toggleRef.current);
      setOpen(false);
    },
    'drawer',
  );
  useShortcut({
    id: 'traffic.toggle',
    keys: ['t'],
    description: 'Open or close the traffic drawer',
    group: 'Traffic',
    match: (event) => event.key === 't',
    run: () => setOpen((o) => !o),
  });
  return (
    <section
      ref={sectionRef}
      className="border-t border-slate-200 dark:border-slate-800"
      aria-label="Traffic"
      data-testid="traffic-drawer"
      data-open={open}
    >
      <header className="flex items-center justify-between px-3 py-1">
        <button
          ref={toggleRef}
          type="button"
          className={`flex items-center gap-1 rounded text-xs font-semibold tracking-wide text-slate-500 uppercase ${focusRing}`}
          onClick={() => setOpen((o) => !o)}
          aria-expanded={open}
          title="Traffic (t)"
        >
          {open ? <ChevronDown size={14} /> : <ChevronUp size={14} />} Traffic
          <span className="font-normal normal-case">({total} messages)</span>
        </button>
        {open && (
          <Button variant="ghost" onClick={clear} title="Clear the log" aria-label="Clear the traffic log">
            <Trash2 size={12} />
          </Button>
        )}
      </header>
      {open && <TrafficLog />}
    </section>
  );
}
