import { useCallback, useEffect, useMemo, useRef } from 'react';
import { Splitter } from '../ui/Splitter';
import { ChevronDown, ChevronUp, Trash2 } from 'lucide-react';
import { Button, focusRing } from '../ui/Button';
import { restoreFocus } from '../ui/keymap';
import { useEscapeLayer, useShortcut } from '../ui/useKeymap';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { TRAFFIC_BYTE_CAP, clearTrafficLog, useTraffic, type DrawerWindow } from './traffic-store';
import { DEFAULT_DRAWER_HEIGHT, useTrafficView } from './traffic-view-store';
import { useTrafficWindow } from './traffic-window-request';
import { isFiltered, NO_FILTER, sameFilter } from '../engine/traffic-filter';
import type { TrafficLine } from '../engine/traffic-window';
import { useConnection } from '../state/connection-store';
import { TrafficHeader, TrafficTable } from './TrafficTable';
import { TrafficDetail } from './TrafficDetail';

const field =
  'rounded bg-slate-100 px-1.5 py-0.5 text-[11px] ring-1 ring-slate-200 outline-none ring-inset focus:ring-2 focus:ring-sky-500 dark:bg-slate-900 dark:ring-slate-700';

const NO_METHODS: string[] = [];
const NO_LINES: TrafficLine[] = [];

function FilterBar() {
  const filter = useTrafficView((s) => s.filter);
  const setFilter = useTrafficView((s) => s.setFilter);
  const methods = useTraffic((s) => s.window?.methods ?? NO_METHODS);
  return (
    <div className="flex flex-wrap items-center gap-1.5 border-b border-slate-200 px-2 py-1 dark:border-slate-800">
      <input
        type="search"
        value={filter.search}
        onChange={(e) => setFilter({ search: e.target.value })}
        placeholder="Search bodies"
        aria-label="Search message bodies"
        spellCheck={false}
        className={`w-40 ${field}`}
        data-testid="traffic-search"
      />
      <select
        value={filter.method}
        onChange={(e) => setFilter({ method: e.target.value })}
        aria-label="Filter by method"
        className={field}
        data-testid="traffic-method"
      >
        <option value="">any method</option>
        {filter.method !== '' && !methods.includes(filter.method) && (
          <option value={filter.method}>{filter.method}</option>
        )}
        {methods.map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
      </select>
      <input
        type="search"
        value={filter.taskId}
        onChange={(e) => setFilter({ taskId: e.target.value, taskExact: false })}
        placeholder="task id"
        aria-label="Filter by task id"
        spellCheck={false}
        className={`w-36 font-mono ${field}`}
        data-testid="traffic-task"
      />
      <select
        value={filter.kind}
        onChange={(e) => setFilter({ kind: e.target.value as typeof filter.kind })}
        aria-label="Filter by kind"
        className={field}
        data-testid="traffic-kind"
      >
        <option value="all">all kinds</option>
        <option value="request">requests</option>
        <option value="notification">notifications</option>
        <option value="error">errors</option>
        <option value="auth">sign-in</option>
      </select>
      {isFiltered(filter) && (
        <Button
          variant="ghost"
          className="px-1.5 py-0 text-[11px]"
          onClick={() => setFilter(NO_FILTER)}
          data-testid="traffic-unfilter"
        >
          Show all
        </Button>
      )}
    </div>
  );
}

/** The rows as the table draws them: the window's lines in their places, the filtered rows around them holes. */
function placed(window: DrawerWindow | undefined, fresh: boolean): (TrafficLine | undefined)[] {
  const items = new Array<TrafficLine | undefined>(window?.filtered ?? 0);
  // A window of an older filter keeps the table's length, not its rows: never a row the filter excludes.
  if (window && fresh) window.lines.forEach((line, i) => (items[window.start + i] = line));
  return items;
}

/** The log: filters, the rows, and the opened row beside them. Mounted only while the drawer is open. */
function TrafficPanel() {
  // The engine sends the rows in view and the opened message while the panel is mounted; closed, the drawer
  // has the counts alone.
  useTrafficWindow();
  const window = useTraffic((s) => s.window);
  const filter = useTrafficView((s) => s.filter);
  const selected = useTrafficView((s) => s.selected);
  const follow = useTrafficView((s) => s.follow);
  const select = useTrafficView((s) => s.select);
  const setFollow = useTrafficView((s) => s.setFollow);
  const connectionId = useConnection((s) => s.id);
  const fresh =
    window !== undefined && sameFilter(window.filter, filter) && window.connectionId === connectionId;
  const items = useMemo(() => placed(window, fresh), [window, fresh]);
  const opened = selected !== null && window?.opened?.n === selected ? window.opened : undefined;
  // The log no longer has the row asked for (the ring let it go, before or after it was shown): nothing is
  // open any more, and the newest are followed again.
  useEffect(() => {
    if (selected !== null && window?.asked === selected && window.opened === null) select(null);
  }, [selected, window, select]);
  const tableRef = useRef<HTMLDivElement>(null);
  const open = useCallback(
    (n: number) => select(useTrafficView.getState().selected === n ? null : n),
    [select],
  );
  const close = useCallback(() => {
    const n = useTrafficView.getState().selected;
    select(null);
    // Back to the row it was opened from, so up/down go on from there.
    const button = tableRef.current?.querySelector<HTMLElement>(`[data-n="${n}"] [data-keynav-item]`);
    button?.focus();
  }, [select]);
  // Inside the drawer's own layer: Escape closes the message first (also while it is on its way), the drawer
  // after.
  useEscapeLayer(selected !== null, close, 'drawer');
  return (
    <div className="flex min-h-0 flex-1 flex-col font-mono text-[11px]">
      <FilterBar />
      <div className="flex min-h-0 flex-1">
        <div
          ref={tableRef}
          role="table"
          aria-label="Messages"
          aria-rowcount={items.length + 1}
          className={`flex min-h-0 min-w-0 flex-col ${selected !== null ? 'w-1/2 border-r border-slate-200 dark:border-slate-800' : 'flex-1'}`}
        >
          <TrafficHeader />
          {items.length === 0 ? (
            <p className="px-2 py-2 font-sans text-xs text-slate-500" data-testid="traffic-empty">
              {!fresh
                ? 'Loading messages…'
                : isFiltered(filter)
                  ? 'No message matches the filters.'
                  : 'No messages yet.'}
            </p>
          ) : (
            <TrafficTable
              items={items}
              lines={fresh && window ? window.lines : NO_LINES}
              linesStart={window?.start ?? 0}
              selected={selected}
              follow={follow}
              onOpen={open}
              onUnfollow={() => setFollow(false)}
            />
          )}
        </div>
        {selected !== null && (
          <div className="flex min-h-0 w-1/2 min-w-0 flex-col font-sans">
            {opened ? (
              <ErrorBoundary key={opened.n} label="This message">
                <TrafficDetail row={opened} onClose={close} />
              </ErrorBoundary>
            ) : (
              // The engine sends the message with its next batch: the pane stays, so the table keeps its width.
              <p className="px-2 py-2 text-xs text-slate-500" data-testid="traffic-opening">
                Opening the message…
              </p>
            )}
          </div>
        )}
      </div>
    </div>
  );
}

/** The drawer's height never leaves the main pane above it less than this. */
const ROOM_ABOVE = '16rem';

export function TrafficDrawer() {
  const open = useTrafficView((s) => s.open);
  const setOpen = useTrafficView((s) => s.setOpen);
  const height = useTrafficView((s) => s.height);
  const setHeight = useTrafficView((s) => s.setHeight);
  const follow = useTrafficView((s) => s.follow);
  const setFollow = useTrafficView((s) => s.setFollow);
  const total = useTraffic((s) => s.total);
  const kept = useTraffic((s) => s.kept);
  const sectionRef = useRef<HTMLElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const toggle = () => {
    // An opened message is the drawer's: it closes with it, so the next opening starts on the list.
    if (open) useTrafficView.getState().select(null);
    setOpen(!open);
  };
  useEscapeLayer(
    open,
    () => {
      restoreFocus(sectionRef.current, toggleRef.current);
      useTrafficView.getState().select(null);
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
    run: toggle,
  });
  const capMb = Math.round(TRAFFIC_BYTE_CAP / 1024 / 1024);
  return (
    <section
      ref={sectionRef}
      className="flex shrink-0 flex-col border-t border-slate-200 dark:border-slate-800"
      style={
        open
          ? {
              height: height ?? DEFAULT_DRAWER_HEIGHT.share,
              minHeight: height === undefined ? DEFAULT_DRAWER_HEIGHT.min : undefined,
              maxHeight: `calc(100vh - ${ROOM_ABOVE})`,
            }
          : undefined
      }
      aria-label="Traffic"
      data-testid="traffic-drawer"
      data-open={open}
    >
      {open && (
        <Splitter
          axis="y"
          grow="backward"
          // Until resized, measured: its default is a share of the window.
          size={
            height ?? (() => sectionRef.current?.getBoundingClientRect().height ?? DEFAULT_DRAWER_HEIGHT.min)
          }
          setSize={setHeight}
          label="Resize the traffic drawer"
          testId="traffic-resize"
        />
      )}
      <header className="flex shrink-0 items-center gap-2 px-3 py-1">
        <button
          ref={toggleRef}
          type="button"
          className={`flex items-center gap-1 rounded text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-300 ${focusRing}`}
          onClick={toggle}
          aria-expanded={open}
          title="Traffic (t)"
        >
          {open ? <ChevronDown size={14} /> : <ChevronUp size={14} />} Traffic
          <span className="font-normal normal-case" data-testid="traffic-count">
            ({total} messages{total > kept ? `, last ${kept} kept` : ''}
            {open ? `, ${capMb} MB cap` : ''})
          </span>
        </button>
        {open && (
          <div className="ml-auto flex items-center gap-2">
            <label className="flex items-center gap-1 text-[11px] text-slate-600 dark:text-slate-300">
              <input
                type="checkbox"
                checked={follow}
                onChange={(e) => setFollow(e.target.checked)}
                className={`rounded ${focusRing}`}
                data-testid="traffic-follow"
              />
              follow newest
            </label>
            <Button
              variant="ghost"
              onClick={() => {
                useTrafficView.getState().select(null);
                clearTrafficLog();
              }}
              title="Clear the log and its counts"
              aria-label="Clear the traffic log"
              data-testid="traffic-clear"
            >
              <Trash2 size={12} />
            </Button>
          </div>
        )}
      </header>
      {open && <TrafficPanel />}
    </section>
  );
}
