import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { useConnection } from '../state/connection-store';
import { usePreferences } from '../state/preferences-store';
import { useReplay } from '../state/replay-store';
import { clearHistory } from './actions';
import type { Detection } from '../mcp';
import { EraSelect } from './EraSelect';
import { DirectInstead } from './ConnectionProblem';
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

/** Devtools' "Preserve log" and Clear, for what Taskscope keeps of this receiver in the browser. */
function HistoryControls() {
  const preserve = usePreferences((s) => s.preserveLog);
  const setPreserve = usePreferences((s) => s.setPreserveLog);
  const history = useConnection((s) => s.history);
  const connected = useConnection((s) => s.status !== 'idle');
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1 border-t border-slate-100 pt-2 text-xs dark:border-slate-800">
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
        <span className="text-slate-600 dark:text-slate-300" data-testid="history-restored">
          {history.restored} task{history.restored === 1 ? '' : 's'} restored
          {history.dropped ? ` (${history.dropped} older ended ones let go: history keeps 2,000)` : ''}
        </span>
      ) : null}
    </div>
  );
}

const note = 'rounded bg-amber-50 px-2 py-1 text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200';

/**
 * What a person must see about the receiver even with its card folded: history that cannot be kept, a
 * notification stream that keeps closing, tools that cannot run as tasks.
 */
export function ReceiverNotes() {
  const history = useConnection((s) => s.history);
  const streamNote = useConnection((s) => s.streamNote);
  const noToolTasks = useConnection((s) => !!s.server && !s.support?.toolCall);
  const problem =
    history && (history.state === 'full' || history.state === 'error' || history.state === 'unavailable');
  if (!problem && !streamNote && !noToolTasks) return null;
  return (
    <div className="space-y-1 px-3 pb-2">
      {problem && (
        <p className={note} data-testid="history-problem">
          {history.message}
        </p>
      )}
      {streamNote && (
        <p className={note} data-testid="stream-note">
          {streamNote}
        </p>
      )}
      {noToolTasks && (
        <p className={note}>
          This receiver does not support tasks for tools/call: tools can be listed but not run as tasks.
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

/** The receiver's details, shown when its card is unfolded. */
export function ServerCard() {
  const { status, server, support, viaRelay, url, headers, resumed, recoveredAt, sessionId, detectedBy } =
    useConnection();
  const replaying = useReplay((s) => s.connectionId !== undefined);
  const dialects = useTasks((s) => s.dialects);
  if (!server) {
    return (
      <div className="space-y-2 px-3 pb-3" aria-busy={status === 'connecting'}>
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
  const label = 'text-slate-600 dark:text-slate-300';
  return (
    <div className="space-y-2 px-3 pb-3 text-sm" data-testid="server-card">
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs">
        <dt className={label}>name</dt>
        <dd className="truncate font-mono">
          {server.name} <span className={label}>v{server.version}</span>
        </dd>
        <dt className={label}>protocol</dt>
        <dd className="flex flex-wrap items-center gap-1">
          <span className="font-mono" data-testid="protocol-version">
            {server.protocolVersion ?? 'unknown'}
          </span>
          {detectedBy && (
            <span className={label} data-testid="era-detection">
              ({detectionText[detectedBy]})
            </span>
          )}
          <EraSelect url={url} headers={headers} />
        </dd>
        <dt className={label}>session</dt>
        <dd className="truncate font-mono" data-testid="session-id" title={sessionId}>
          {sessionId ??
            (replaying
              ? '— (a replay opens none)'
              : support?.era === '2026-07-28'
                ? '— (2026-07-28 has no sessions)'
                : '— (sessionless receiver)')}
        </dd>
        <dt className={label}>tasks</dt>
        <dd className="flex flex-wrap gap-1" data-testid="task-capabilities">
          {support?.era !== '2026-07-28' && <Capability on={!!support?.list} label="list" />}
          <Capability on={!!support?.cancel} label="cancel" />
          <Capability on={!!support?.toolCall} label="tools/call" />
        </dd>
        <dt className={label}>speaks</dt>
        <dd className="flex flex-wrap gap-1" data-testid="dialects">
          {dialects.length === 0 ? (
            <span className={label}>— (no task answers yet)</span>
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
            <dt className={label}>also</dt>
            <dd className="font-mono text-slate-600 dark:text-slate-300">{extraCaps.join(', ')}</dd>
          </>
        )}
      </dl>
      {server.instructions && <CollapsibleMarkdown text={server.instructions} testId="server-instructions" />}
      {(resumed || recoveredAt) && status === 'connected' && (
        <p className={`text-xs ${label}`} data-testid="session-note">
          {recoveredAt
            ? `Recovered at ${formatClock(recoveredAt)}: polling goes on where it stopped.`
            : 'Session resumed after the reload: its tasks stay live.'}
        </p>
      )}
      {viaRelay && status === 'connected' && <DirectInstead url={url} headers={headers} />}
      <HistoryControls />
    </div>
  );
}
