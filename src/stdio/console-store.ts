import { create } from 'zustand';

export interface ConsoleLine {
  seq: number;
  at: number;
  stream: 'stderr' | 'stdout' | 'bridge';
  text: string;
}

export type ProcessState =
  | { phase: 'not-started' }
  | { phase: 'starting' }
  | { phase: 'running'; pid: number; startedAt: number }
  | {
      phase: 'exited';
      pid?: number;
      endedAt: number;
      code: number | null;
      signal: string | null;
      spawnError?: string;
      stoppedBy?: string;
    };

export interface ConsoleState {
  /** The page connection the lines are of; a new one starts the console afresh. */
  connection?: string;
  command?: string;
  state?: ProcessState;
  summary?: string;
  nonMcpLines: number;
  lines: ConsoleLine[];
  lastSeq: number;
  /** Why the console could not be read, when it could not. */
  error?: string;
}

/** The page keeps no more than the bridge's ring does. */
export const PAGE_LINES = 2000;

export const useConsole = create<ConsoleState>()(() => ({ nonMcpLines: 0, lines: [], lastSeq: 0 }));

export function resetConsole(connection: string | undefined): void {
  useConsole.setState({
    connection,
    command: undefined,
    state: undefined,
    summary: undefined,
    nonMcpLines: 0,
    lines: [],
    lastSeq: 0,
    error: undefined,
  });
}

const STREAMS = new Set(['stderr', 'stdout', 'bridge']);

/** What the bridge sent, checked and capped before it reaches the views: it carries a process's output. */
export function applySnapshot(connection: string, raw: unknown): void {
  const current = useConsole.getState();
  if (current.connection !== connection || typeof raw !== 'object' || raw === null) return;
  const body = raw as Record<string, unknown>;
  const incoming = Array.isArray(body.lines) ? body.lines : [];
  const fresh: ConsoleLine[] = [];
  for (const line of incoming.slice(-PAGE_LINES) as Array<Record<string, unknown>>) {
    if (
      typeof line?.seq !== 'number' ||
      line.seq <= current.lastSeq ||
      typeof line.text !== 'string' ||
      !STREAMS.has(line.stream as string)
    )
      continue;
    fresh.push({
      seq: line.seq,
      at: typeof line.at === 'number' ? line.at : Date.now(),
      stream: line.stream as ConsoleLine['stream'],
      text: line.text.slice(0, 8000),
    });
  }
  const lines = fresh.length > 0 ? [...current.lines, ...fresh].slice(-PAGE_LINES) : current.lines;
  useConsole.setState({
    command: typeof body.command === 'string' ? body.command.slice(0, 2000) : current.command,
    state: isState(body.state) ? body.state : current.state,
    summary: typeof body.summary === 'string' ? body.summary.slice(0, 4000) : undefined,
    nonMcpLines: typeof body.nonMcpLines === 'number' ? body.nonMcpLines : current.nonMcpLines,
    lines,
    lastSeq: lines.at(-1)?.seq ?? current.lastSeq,
    error: undefined,
  });
}

function isState(value: unknown): value is ProcessState {
  const phase = (value as { phase?: unknown } | null)?.phase;
  return phase === 'not-started' || phase === 'starting' || phase === 'running' || phase === 'exited';
}
