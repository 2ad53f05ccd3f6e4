import { connect, initialHeaders, parseReceiverUrl } from '../receiver/actions';
import { receiverFromParam, receiverParam } from '../state/address-bar';
import { useConnection } from '../state/connection-store';
import { useReplay } from '../state/replay-store';
import { useObserve } from '../state/observe-store';
import { useSelection, type Selection } from '../state/selection-store';

/**
 * The address the page's state calls for; undefined while it is between states (a trace being opened).
 * `?observe=` names a source of Taskscope's proxy being observed, in place of `?server=`.
 */
export function addressFor(href: string): string | undefined {
  const replay = useReplay.getState();
  const connection = useConnection.getState();
  const observed = useObserve.getState();
  if (replay.opening) return undefined;
  const replaying = replay.connectionId !== undefined;
  const observing = observed.connectionId !== undefined;
  if (!replaying && !observing && connection.url === '') return undefined;
  const url = new URL(href);
  const params = url.searchParams;
  const put = (name: string, value: string | undefined) => {
    if (value === undefined) params.delete(name);
    else params.set(name, value);
  };
  // An observed source is named by the proxy's name for it; a reload observes it again (newest session).
  put('observe', observing ? observed.source : undefined);
  if (observing) {
    params.delete('trace');
    params.delete('speed');
    params.delete('server');
  } else if (replaying) {
    // A recording from this origin is named by its path; one from a file cannot be, and a reload of the
    // address goes back to the live receiver the page was on.
    put('trace', replay.source);
    if (replay.source === undefined) params.delete('speed');
    put('server', receiverParam(replay.live?.url ?? ''));
  } else {
    params.delete('trace');
    params.delete('speed');
    put('server', receiverParam(connection.url));
  }
  const selection = useSelection.getState().selection;
  put('task', selection.kind === 'task' ? selection.taskId : undefined);
  return url.toString();
}

/**
 * Keeps the address in step with the page: the receiver, the task open, the trace replayed. A person's move
 * (another receiver, another task) is a new history entry, so Back and Forward move between them; what the
 * page settles on by itself at load replaces the entry it came with. Changes made in one go (a new receiver
 * closes the task of the old one) are written once. Returns the unsubscribe.
 */
export function syncAddress(): () => void {
  let mode: 'push' | 'replace' = 'replace';
  let queued = false;
  const write = () => {
    queued = false;
    const next = addressFor(window.location.href);
    if (next === undefined) return;
    if (next !== window.location.href) {
      if (mode === 'push') window.history.pushState(null, '', next);
      else window.history.replaceState(window.history.state, '', next);
    }
    mode = 'push';
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Written in a task of its own: a history entry costs the browser milliseconds that the click which opened a
  // task must not wait for before its detail shows.
  const schedule = () => {
    if (queued) return;
    queued = true;
    timer = setTimeout(write, 0);
  };
  const stops = [
    useSelection.subscribe((s, before) => {
      if (s.selection !== before.selection) schedule();
    }),
    useConnection.subscribe((s, before) => {
      if (s.url !== before.url) schedule();
    }),
    useObserve.subscribe((s, before) => {
      if (s.connectionId !== before.connectionId || s.source !== before.source) schedule();
    }),
    useReplay.subscribe((s, before) => {
      if (
        s.connectionId !== before.connectionId ||
        s.opening !== before.opening ||
        s.source !== before.source ||
        s.live !== before.live
      )
        schedule();
    }),
  ];

  /** Back or Forward: the page becomes what the address says. */
  const onPop = () => {
    const params = new URLSearchParams(window.location.search);
    const trace = params.get('trace');
    const replay = useReplay.getState();
    const observed = useObserve.getState();
    // Into or out of a recording or an observed source, or to another one: the page loads it as from a link.
    if (
      trace !== (replay.connectionId !== undefined ? (replay.source ?? null) : null) ||
      params.get('observe') !== (observed.connectionId !== undefined ? (observed.source ?? null) : null)
    ) {
      window.location.reload();
      return;
    }
    mode = 'replace';
    const taskId = params.get('task');
    const selection: Selection = taskId ? { kind: 'task', taskId } : { kind: 'none' };
    const current = useSelection.getState().selection;
    if (selection.kind === 'task' || current.kind === 'task') useSelection.getState().select(selection);
    if (trace !== null) return;
    const server = receiverFromParam(params.get('server'));
    const href = parseReceiverUrl(server)?.toString() ?? server;
    if (href !== useConnection.getState().url)
      void connect(server, initialHeaders(server), { resume: true, keepSelection: true });
    schedule();
  };
  window.addEventListener('popstate', onPop);
  return () => {
    for (const stop of stops) stop();
    clearTimeout(timer);
    window.removeEventListener('popstate', onPop);
  };
}
