import { useState } from 'react';
import { Download } from 'lucide-react';
import { Button, narrowLabel } from '../ui/Button';
import { downloadText } from '../ui/download';
import { usePopover } from '../ui/usePopover';
import { queryClient } from '../state/query-client';
import { useConnection } from '../state/connection-store';
import { useTasks } from '../tasks/tasks-store';
import { withEveryTask } from '../tasks/task-view-request';
import { fetchTrafficEvents, useTraffic } from '../traffic/traffic-store';
import { buildTrace, exportFileName } from '../engine/trace/build-trace';
import { pageTraceSources } from './export-sources';
import { buildHar } from './har';

type Kind = 'trace' | 'har';

async function exportNow(kind: Kind, includeSecrets: boolean): Promise<string> {
  // The page holds the log's rows only while the drawer is open: the export asks the engine for all of them.
  const traffic = await fetchTrafficEvents(useConnection.getState().id);
  // So does the page hold the records of the tasks it shows: the export has them all for the moment it reads.
  const trace = await withEveryTask(() =>
    buildTrace(pageTraceSources(queryClient, traffic), { includeSecrets }),
  );
  const name = exportFileName(trace.receiver.url, kind === 'trace' ? 'trace.json' : 'har');
  if (kind === 'trace') downloadText(name, JSON.stringify(trace), 'application/json');
  else downloadText(name, JSON.stringify(buildHar(trace)), 'application/json');
  return name;
}

/** The menu's body, mounted only while open: it follows the stores only then. */
function ExportOptions() {
  const [includeSecrets, setIncludeSecrets] = useState(false);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const taskCount = useTasks((s) => s.list?.counts.all ?? 0);
  const rowCount = useTraffic((s) => s.rowsKept);
  // A row holding two events is a request with its answer.
  const hasExchange = useTraffic((s) => s.kept > s.rowsKept);
  const url = useConnection((s) => s.url);

  const traceReason =
    url === ''
      ? 'Connect to a receiver first'
      : taskCount === 0 && rowCount === 0
        ? 'Nothing observed yet: no tasks and no traffic'
        : undefined;
  const harReason =
    url === '' ? 'Connect to a receiver first' : !hasExchange ? 'No HTTP exchange recorded yet' : undefined;

  const run = async (kind: Kind) => {
    try {
      const name = await exportNow(kind, includeSecrets);
      setNote({ ok: true, text: `Saved ${name}` });
    } catch (error) {
      setNote({
        ok: false,
        text: `Export failed: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  };

  const item = (kind: Kind, label: string, reason: string | undefined, testId: string) => (
    <div>
      <Button
        variant="ghost"
        className="w-full justify-start"
        disabled={reason !== undefined}
        title={reason}
        aria-describedby={reason ? `${testId}-reason` : undefined}
        onClick={() => void run(kind)}
        data-testid={testId}
      >
        {label}
      </Button>
      {reason && (
        <p id={`${testId}-reason`} className="px-2.5 text-xs text-slate-500">
          {reason}
        </p>
      )}
    </div>
  );

  return (
    <>
      {item('trace', 'Export trace (.json)', traceReason, 'export-trace')}
      {item('har', 'Export HAR (.har)', harReason, 'export-har')}
      <label className="mt-2 flex items-start gap-2 px-2.5 text-xs text-slate-600 dark:text-slate-300">
        <input
          type="checkbox"
          checked={includeSecrets}
          onChange={(e) => setIncludeSecrets(e.target.checked)}
          data-testid="export-include-secrets"
          className="mt-0.5"
        />
        <span>
          Include secrets: the values of headers you set (such as Authorization), credentials in the receiver
          URL and the real Mcp-Session-Id values. Off, secrets are replaced by “[redacted]” and each session
          id by a name (session-1, session-2…) that still tells sessions apart. The traffic log never keeps
          secrets.
        </span>
      </label>
      {note && (
        <p
          role="status"
          data-testid="export-note"
          className={`mt-2 px-2.5 text-xs break-all ${note.ok ? 'text-green-700 dark:text-green-400' : 'text-red-600'}`}
        >
          {note.text}
        </p>
      )}
    </>
  );
}

/** The header's Export menu: the trace file and a HAR of the HTTP exchanges, redacted unless asked. */
export function ExportMenu() {
  const { open, setOpen, menuRef, buttonRef } = usePopover();

  return (
    <div className="relative">
      <Button
        ref={buttonRef}
        variant="ghost"
        onClick={() => setOpen((s) => !s)}
        title="Export a trace or a HAR file"
        aria-expanded={open}
        aria-controls={open ? 'export-menu' : undefined}
        data-testid="export-button"
      >
        <Download size={14} aria-hidden /> <span className={narrowLabel}>Export</span>
      </Button>
      {open && (
        <div
          ref={menuRef}
          id="export-menu"
          data-testid="export-menu"
          className="absolute top-full right-0 z-30 mt-2 w-80 max-w-[calc(100vw-1.5rem)] rounded-md border border-slate-200 bg-white p-2 shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          {/* The menu stays open after an export, so its note says which file was saved. */}
          <ExportOptions />
        </div>
      )}
    </div>
  );
}
