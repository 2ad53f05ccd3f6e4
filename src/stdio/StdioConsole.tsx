import { useEffect, useRef, useState } from 'react';
import { RotateCcw, TerminalSquare } from 'lucide-react';
import { Badge, type Tone } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Panel } from '../ui/Panel';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { useReplay } from '../state/replay-store';
import { formatClock } from '../format/time';
import { useConsole, type ConsoleLine, type ProcessState } from './console-store';
import { useConsolePoll, useConsoleSource } from './use-console-poll';
import { PASSIVE_OBSERVING, useObserve } from '../state/observe-store';
import { restartStdio } from './actions';

function stateLook(state: ProcessState | undefined): { tone: Tone; text: string } {
  if (!state || state.phase === 'not-started') return { tone: 'neutral', text: 'not started' };
  if (state.phase === 'starting') return { tone: 'amber', text: 'starting' };
  if (state.phase === 'running') return { tone: 'green', text: `running · pid ${state.pid}` };
  const how = state.spawnError
    ? 'could not start'
    : state.code !== null
      ? `exited · code ${state.code}`
      : `ended · ${state.signal ?? 'signal'}`;
  return { tone: state.code === 0 && !state.spawnError ? 'neutral' : 'red', text: how };
}

const lineLook: Record<ConsoleLine['stream'], string> = {
  stderr: 'text-slate-800 dark:text-slate-200',
  stdout: 'text-red-700 dark:text-red-300',
  bridge: 'text-slate-500 italic dark:text-slate-400',
};

function Lines({ lines }: { lines: ConsoleLine[] }) {
  const box = useRef<HTMLDivElement>(null);
  const [follow, setFollow] = useState(true);
  useEffect(() => {
    if (follow && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [lines, follow]);
  return (
    <div
      ref={box}
      onScroll={(e) => {
        const el = e.currentTarget;
        setFollow(el.scrollHeight - el.scrollTop - el.clientHeight < 24);
      }}
      className="min-h-16 flex-1 overflow-auto px-3 py-1 font-mono text-[11px] leading-4"
      data-testid="stdio-console-lines"
      tabIndex={0}
      aria-label="The stdio server's console"
    >
      {lines.length === 0 && <p className="text-slate-400">Nothing on stderr yet.</p>}
      {lines.map((line) => (
        <div
          key={line.seq}
          className={`break-all whitespace-pre-wrap ${lineLook[line.stream]}`}
          data-testid="stdio-console-line"
          data-stream={line.stream}
          title={formatClock(line.at)}
        >
          {line.stream === 'stdout' ? `stdout (not MCP): ${line.text}` : line.text}
        </div>
      ))}
    </div>
  );
}

function ConsoleBody() {
  useConsolePoll();
  const { command, state, summary, nonMcpLines, lines, error } = useConsole();
  const replaying = useReplay((s) => s.connectionId !== undefined);
  // A server `taskscope proxy --stdio` runs is the host's: the page shows its console and cannot restart it.
  const observed = useObserve((s) => s.news?.kind === 'stdio');
  const [restarting, setRestarting] = useState(false);
  const look = stateLook(state);
  const restart = () => {
    setRestarting(true);
    void restartStdio().finally(() => setRestarting(false));
  };
  return (
    <Panel
      title={
        <span className="inline-flex items-center gap-1.5" title="The stdio server's console">
          <TerminalSquare size={12} /> Console
        </span>
      }
      className="max-h-[35%] min-h-32 shrink-0"
      actions={
        <>
          <span data-testid="stdio-state">
            <Badge tone={look.tone}>{look.text}</Badge>
          </span>
          <Button
            variant="ghost"
            onClick={restart}
            disabled={restarting || replaying || observed}
            title={
              observed
                ? PASSIVE_OBSERVING
                : 'Stop this process (its live tasks end with it) and start the command again'
            }
            data-testid="stdio-restart"
          >
            <RotateCcw size={14} /> Restart
          </Button>
        </>
      }
    >
      <div className="flex min-h-0 flex-1 flex-col" data-testid="stdio-console">
        {command && (
          <p
            className="truncate border-b border-slate-100 px-3 py-1 font-mono text-[11px] text-slate-500 dark:border-slate-800"
            title={command}
          >
            $ {command}
          </p>
        )}
        {summary && (
          <p className="px-3 py-1 text-xs text-red-700 dark:text-red-300" data-testid="stdio-summary">
            The server {summary}
          </p>
        )}
        {nonMcpLines > 0 && (
          <p className="px-3 py-1 text-xs text-amber-800 dark:text-amber-300" data-testid="stdio-non-mcp">
            {nonMcpLines} line{nonMcpLines === 1 ? '' : 's'} on stdout {nonMcpLines === 1 ? 'is' : 'are'} not
            MCP: stdout must carry JSON-RPC messages only (logs go to stderr).
          </p>
        )}
        {error && <p className="px-3 py-1 text-xs text-red-700 dark:text-red-300">{error}</p>}
        <Lines lines={lines} />
      </div>
    </Panel>
  );
}

/** The console of the stdio server this tab is connected to: shown only then. */
export function StdioConsole() {
  const shown = useConsoleSource() !== undefined;
  if (!shown) return null;
  return (
    <ErrorBoundary label="The stdio console">
      <ConsoleBody />
    </ErrorBoundary>
  );
}
