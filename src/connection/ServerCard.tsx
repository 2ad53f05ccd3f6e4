import { useState } from 'react';
import { Server } from 'lucide-react';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { ErrorNote } from '../ui/Panel';
import { useConnection, type ConnectionState } from '../state/connection';
import { usePreferences } from '../state/preferences';
import { useReplay } from '../state/replay';
import { clearHistory, connect } from './actions';
import { setRelay } from './saved-receivers';
import { eraChoice, setEraChoice } from './era-choice';
import type { Detection, EraChoice } from '../mcp';
import { useTasks } from '../tasks/tasks-store';
import type { Dialect } from '../tracker/task-store';
import { formatClock } from '../format/time';
import { CollapsibleMarkdown } from '../ui/CollapsibleMarkdown';

const dialectLabel: Record<Dialect, string> = {
  spec: '2025-11-25 tasks',
  'user-docs': 'user-document shapes',
  v2: '2026-07-28 shape',
};
const dialectHelp: Record<Dialect, string> = {
  spec: 'Flat tasks/get answers and plain tasks/result, as the 2025-11-25 specification has them',
  'user-docs':
    'tasks/get wrapped as {task}, or tasks/result as {taskId, status, result}, as the user documents describe',
  v2: 'Tasks of the 2026-07-28 tasks extension (ttlMs, pollIntervalMs, results inline in tasks/get)',
};

function Capability({ on, label }: { on: boolean; label: string }) {
  return (
    <Badge tone={on ? 'green' : 'neutral'} title={on ? `${label}: offered` : `${label}: not offered`}>
      {on ? '✓' : '✕'} {label}
    </Badge>
  );
}

function problemTitle({ status, error }: Pick<ConnectionState, 'status' | 'error'>): string {
  if (status === 'unreachable') return 'Receiver unreachable';
  if (status === 'session-lost') return 'Session lost';
  if (error?.diagnosis === 'cors') return "The receiver does not allow this page's origin (CORS)";
  return 'Could not connect';
}

/**
 * A receiver without CORS for this page can still be reached through `npm start`'s relay, once the person
 * says so for this very URL: a link cannot make the relay fetch anything by itself.
 */
function RelayOffer({ url, headers }: { url: string; headers: Record<string, string> }) {
  const [confirming, setConfirming] = useState(false);
  if (!confirming)
    return (
      <Button variant="outline" onClick={() => setConfirming(true)} data-testid="relay-offer">
        Connect through the local relay
      </Button>
    );
  return (
    <div className="space-y-2 text-xs" role="dialog" aria-label="Connect through the local relay">
      <p>
        Taskscope&apos;s own server (the one <code>npm start</code> runs, on this machine only) will forward
        this page&apos;s MCP requests to <span className="font-mono break-all">{url}</span> and pass back only
        JSON and event-stream answers. Use it for receivers you trust; the choice is remembered for this URL.
      </p>
      <div className="flex gap-2">
        <Button
          variant="primary"
          data-testid="relay-confirm"
          onClick={() => {
            setRelay(url, true);
            void connect(url, headers);
          }}
        >
          Connect through the relay
        </Button>
        <Button variant="ghost" onClick={() => setConfirming(false)}>
          Cancel
        </Button>
      </div>
    </div>
  );
}

/** Back from the relay to a direct connection, for a receiver that allows the page's origin after all. */
function DirectInstead({ url, headers }: { url: string; headers: Record<string, string> }) {
  return (
    <p className="flex items-center gap-2 text-xs text-slate-500">
      Through the local relay.
      <Button
        variant="ghost"
        onClick={() => {
          setRelay(url, false);
          void connect(url, headers);
        }}
      >
        Connect directly
      </Button>
    </p>
  );
}

function ConnectionProblem() {
  const { status, error, url, headers, since, viaRelay } = useConnection();
  if (!error || (status !== 'error' && status !== 'unreachable' && status !== 'session-lost')) return null;
  return (
    <ErrorNote title={problemTitle({ status, error })}>
      <p data-testid="connection-error">{error.message}</p>
      {error.detail && <p className="mt-1 font-mono text-xs break-all opacity-80">{error.detail}</p>}
      <p className="mt-1 text-xs opacity-80">
        {url}
        {since && status !== 'error' ? ` · since ${formatClock(since)}` : ''}
      </p>
      {error.diagnosis === 'cors' && !viaRelay && (
        <div className="mt-2">
          <RelayOffer url={url} headers={headers} />
        </div>
      )}
      {viaRelay && <DirectInstead url={url} headers={headers} />}
      {error.kind === 'protocol' && (
        <p className="mt-2 flex items-center gap-2 text-xs">
          Protocol to speak: <EraSelect url={url} headers={headers} />
        </p>
      )}
    </ErrorNote>
  );
}

/** Devtools' "Preserve log" and Clear, for what Taskscope keeps of this receiver in the browser. */
function HistoryControls() {
  const preserve = usePreferences((s) => s.preserveLog);
  const setPreserve = usePreferences((s) => s.setPreserveLog);
  const history = useConnection((s) => s.history);
  const connected = useConnection((s) => s.status !== 'idle');
  const problem =
    history && (history.state === 'full' || history.state === 'error' || history.state === 'unavailable');
  return (
    <div className="space-y-1 border-t border-slate-100 pt-2 text-xs dark:border-slate-800">
      <div className="flex items-center gap-3">
        <label
          className="flex items-center gap-1.5"
          title="Keep tasks, results and traffic of this receiver across reloads and reconnects"
        >
          <input
            type="checkbox"
            checked={preserve}
            onChange={(e) => setPreserve(e.target.checked)}
            data-testid="preserve-log"
          />
          Preserve log
        </label>
        <Button
          variant="ghost"
          disabled={!connected}
          onClick={() => void clearHistory()}
          title="Forget this receiver's ended tasks, traffic and answered requests, here and in storage; live tasks stay"
          data-testid="clear-history"
        >
          Clear
        </Button>
        {history?.restored ? (
          <span className="text-slate-500" data-testid="history-restored">
            {history.restored} task{history.restored === 1 ? '' : 's'} restored
            {history.dropped ? ` (${history.dropped} older ended ones let go: history keeps 2,000)` : ''}
          </span>
        ) : null}
      </div>
      {problem && (
        <p
          className="rounded bg-amber-50 px-2 py-1 text-amber-800 dark:bg-amber-950 dark:text-amber-300"
          data-testid="history-problem"
        >
          {history.message}
        </p>
      )}
    </div>
  );
}

const detectionText: Record<Detection, string> = {
  discover: 'server/discover answered',
  initialize: 'no server/discover: initialize',
  forced: 'chosen',
  resumed: 'session resumed',
};

/** Which generation to speak with this receiver: found out (auto) or chosen, remembered per receiver. */
function EraSelect({ url, headers }: { url: string; headers: Record<string, string> }) {
  const [choice, setChoice] = useState<EraChoice>(() => eraChoice(url));
  return (
    <select
      aria-label="Protocol version to speak"
      title="Auto asks server/discover first (2026-07-28) and falls back to initialize (2025-11-25)"
      value={choice}
      data-testid="era-choice"
      onChange={(e) => {
        const next = e.target.value as EraChoice;
        setChoice(next);
        setEraChoice(url, next);
        void connect(url, headers);
      }}
      className="rounded bg-transparent text-xs text-slate-500 ring-1 ring-slate-200 dark:ring-slate-700"
    >
      <option value="auto">auto</option>
      <option value="2025-11-25">2025-11-25</option>
      <option value="2026-07-28">2026-07-28</option>
    </select>
  );
}

export function ServerCard() {
  const {
    status,
    server,
    support,
    streamNote,
    viaRelay,
    url,
    headers,
    resumed,
    recoveredAt,
    sessionId,
    detectedBy,
  } = useConnection();
  const replaying = useReplay((s) => s.connectionId !== undefined);
  const dialects = useTasks((s) => s.dialects);
  if (!server) {
    return (
      <div className="space-y-2 p-3" aria-busy={status === 'connecting'}>
        <ConnectionProblem />
        {status === 'connecting' && (
          <>
            <div className="h-4 w-2/3 animate-pulse rounded bg-slate-200 dark:bg-slate-800" />
            <div className="h-3 w-1/2 animate-pulse rounded bg-slate-200 dark:bg-slate-800" />
          </>
        )}
        <HistoryControls />
      </div>
    );
  }
  const extraCaps = Object.keys(server.capabilities).filter((k) => k !== 'tasks');
  return (
    <div className="space-y-2 p-3 text-sm" data-testid="server-card">
      <ConnectionProblem />
      <div className="flex items-center gap-2">
        <Server size={16} className="shrink-0 text-slate-400" />
        <span className="truncate font-semibold" data-testid="server-name" title={server.name}>
          {server.title ?? server.name}
        </span>
        <span className="text-xs text-slate-500">v{server.version}</span>
      </div>
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs">
        <dt className="text-slate-500">name</dt>
        <dd className="truncate font-mono">{server.name}</dd>
        <dt className="text-slate-500">protocol</dt>
        <dd className="flex flex-wrap items-center gap-1">
          <span className="font-mono" data-testid="protocol-version">
            {server.protocolVersion ?? 'unknown'}
          </span>
          {detectedBy && (
            <span className="text-slate-500" data-testid="era-detection">
              ({detectionText[detectedBy]})
            </span>
          )}
          <EraSelect url={url} headers={headers} />
        </dd>
        <dt className="text-slate-500">session</dt>
        <dd className="truncate font-mono" data-testid="session-id" title={sessionId}>
          {sessionId ??
            (replaying
              ? '— (a replay opens none)'
              : support?.era === '2026-07-28'
                ? '— (2026-07-28 has no sessions)'
                : '— (sessionless receiver)')}
        </dd>
        <dt className="text-slate-500">tasks</dt>
        <dd className="flex flex-wrap gap-1" data-testid="task-capabilities">
          {support?.era !== '2026-07-28' && <Capability on={!!support?.list} label="list" />}
          <Capability on={!!support?.cancel} label="cancel" />
          <Capability on={!!support?.toolCall} label="tools/call" />
        </dd>
        <dt className="text-slate-500">speaks</dt>
        <dd className="flex flex-wrap gap-1" data-testid="dialects">
          {dialects.length === 0 ? (
            <span className="text-slate-500">— (no task answers yet)</span>
          ) : (
            dialects.map((d) => (
              <Badge key={d} tone={d === 'spec' ? 'blue' : 'amber'} title={dialectHelp[d]}>
                {dialectLabel[d]}
              </Badge>
            ))
          )}
        </dd>
        {extraCaps.length > 0 && (
          <>
            <dt className="text-slate-500">also</dt>
            <dd className="font-mono text-slate-600 dark:text-slate-400">{extraCaps.join(', ')}</dd>
          </>
        )}
      </dl>
      {server.instructions && <CollapsibleMarkdown text={server.instructions} testId="server-instructions" />}
      {streamNote && (
        <p
          className="rounded bg-amber-50 px-2 py-1 text-xs text-amber-800 dark:bg-amber-950 dark:text-amber-300"
          data-testid="stream-note"
        >
          {streamNote}
        </p>
      )}
      {(resumed || recoveredAt) && status === 'connected' && (
        <p className="text-xs text-slate-500" data-testid="session-note">
          {recoveredAt
            ? `Recovered at ${formatClock(recoveredAt)}: polling goes on where it stopped.`
            : 'Session resumed after the reload: its tasks stay live.'}
        </p>
      )}
      {viaRelay && status === 'connected' && <DirectInstead url={url} headers={headers} />}
      {!support?.toolCall && (
        <p className="rounded bg-amber-50 px-2 py-1 text-xs text-amber-800 dark:bg-amber-950 dark:text-amber-300">
          This receiver does not support tasks for tools/call: tools can be listed but not run as tasks.
        </p>
      )}
      <HistoryControls />
    </div>
  );
}
