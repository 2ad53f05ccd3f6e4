import { Server } from 'lucide-react';
import { Badge } from '../ui/Badge';
import { ErrorNote } from '../ui/Panel';
import { useConnection } from '../state/connection';
import { useTasks } from '../tasks/store';
import type { Dialect } from '../tasks/core/store';

const dialectLabel: Record<Dialect, string> = {
  spec: '2025-11-25 tasks',
  'user-docs': 'user-document shapes',
  v2: '2026-07-28 shape',
};
const dialectHelp: Record<Dialect, string> = {
  spec: 'Flat tasks/get answers and plain tasks/result, as the 2025-11-25 specification has them',
  'user-docs':
    'tasks/get wrapped as {task}, or tasks/result as {taskId, status, result}, as the user documents describe',
  v2: 'Tasks in the 2026-07-28 shape (resultType "task"): read as best Taskscope can',
};

function Capability({ on, label }: { on: boolean; label: string }) {
  return (
    <Badge tone={on ? 'green' : 'neutral'} title={on ? `${label}: offered` : `${label}: not offered`}>
      {on ? '✓' : '✕'} {label}
    </Badge>
  );
}

export function ServerCard() {
  const { status, server, support, error, url, streamNote } = useConnection();
  const dialects = useTasks((s) => s.dialects);
  if (status === 'error' && error) {
    return (
      <div className="p-3">
        <ErrorNote title={error.kind === 'session-lost' ? 'Session lost' : 'Could not connect'}>
          <p>{error.message}</p>
          {error.detail && <p className="mt-1 font-mono text-xs break-all opacity-80">{error.detail}</p>}
          <p className="mt-1 text-xs opacity-80">{url}</p>
        </ErrorNote>
      </div>
    );
  }
  if (!server) {
    return (
      <div className="space-y-2 p-3" aria-busy={status === 'connecting'}>
        <div className="h-4 w-2/3 animate-pulse rounded bg-slate-200 dark:bg-slate-800" />
        <div className="h-3 w-1/2 animate-pulse rounded bg-slate-200 dark:bg-slate-800" />
      </div>
    );
  }
  const extraCaps = Object.keys(server.capabilities).filter((k) => k !== 'tasks');
  return (
    <div className="space-y-2 p-3 text-sm" data-testid="server-card">
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
        <dd className="font-mono" data-testid="protocol-version">
          {server.protocolVersion ?? 'unknown'}
        </dd>
        <dt className="text-slate-500">tasks</dt>
        <dd className="flex flex-wrap gap-1" data-testid="task-capabilities">
          <Capability on={!!support?.list} label="list" />
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
      {streamNote && (
        <p
          className="rounded bg-amber-50 px-2 py-1 text-xs text-amber-800 dark:bg-amber-950 dark:text-amber-300"
          data-testid="stream-note"
        >
          {streamNote}
        </p>
      )}
      {!support?.toolCall && (
        <p className="rounded bg-amber-50 px-2 py-1 text-xs text-amber-800 dark:bg-amber-950 dark:text-amber-300">
          This receiver does not support tasks for tools/call: tools can be listed but not run as tasks.
        </p>
      )}
    </div>
  );
}
