/**
 * Where the machine's CPU goes over a window, by process: the page's renderer (its main thread and the engine
 * Worker), the browser's other processes (the network service that carries every fetch, the browser itself,
 * the GPU process), the receiver, and the bench. A CPU profile sees only JavaScript threads; this sees every
 * process, from /proc (Linux), in ms of CPU.
 */
import { readFileSync, readdirSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

interface Sample {
  /** pid → [group, utime + stime in ticks] */
  byPid: Map<number, [string, number]>;
  /** the whole machine's busy and total ticks */
  busy: number;
  total: number;
}

function groupOf(cmdline: string, receiverPid: number | undefined, pid: number): string | undefined {
  if (pid === receiverPid) return 'receiver';
  if (pid === process.pid) return 'bench (Playwright)';
  if (!cmdline.includes('chrom')) return undefined;
  const type = /--type=([a-z-]+)/.exec(cmdline)?.[1];
  if (!type) return 'browser process';
  if (type === 'utility') {
    const service = /--utility-sub-type=([\w.]+)/.exec(cmdline)?.[1] ?? 'utility';
    return service.includes('network') ? 'network service' : `utility (${service})`;
  }
  return type === 'gpu-process' ? 'GPU process' : type;
}

function sample(receiverPid: number | undefined): Sample {
  const procs = new Map<number, { ppid: number; ticks: number; cmdline: string }>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      procs.set(pid, {
        ppid: Number(fields[1]),
        ticks: Number(fields[11]) + Number(fields[12]),
        cmdline,
      });
    } catch {
      // The process ended meanwhile.
    }
  }
  // Only this bench's own processes (its browser, the receiver, itself): others' on a shared machine are not ours.
  const ours = (pid: number): boolean => {
    for (let at = pid, hops = 0; at > 1 && hops < 64; hops++) {
      if (at === process.pid) return true;
      const parent = procs.get(at)?.ppid;
      if (parent === undefined) return false;
      at = parent;
    }
    return false;
  };
  const byPid = new Map<number, [string, number]>();
  for (const [pid, { ticks, cmdline }] of procs) {
    if (!ours(pid)) continue;
    const group = groupOf(cmdline, receiverPid, pid);
    if (group) byPid.set(pid, [group, ticks]);
  }
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
  const total = cpu.reduce((a, b) => a + b, 0);
  return { byPid, busy: total - idle, total };
}

export interface MachineFigures {
  /** ms of CPU per process group over the window, heaviest first */
  groups: [string, number][];
  /** the machine's busy share over the window, 0–1 (all cores) */
  busyShare: number;
}

/** Starts a window; the returned function ends it. Empty figures where /proc is missing. */
export function machineWindow(receiverPid: number | undefined): () => MachineFigures {
  let from: Sample | undefined;
  try {
    from = sample(receiverPid);
  } catch {
    return () => ({ groups: [], busyShare: NaN });
  }
  return () => {
    const to = sample(receiverPid);
    const groups = new Map<string, number>();
    for (const [pid, [group, ticks]] of to.byPid) {
      const before = from?.byPid.get(pid)?.[1] ?? 0;
      groups.set(group, (groups.get(group) ?? 0) + (ticks - before) * TICK_MS);
    }
    return {
      groups: [...groups].filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]),
      busyShare: (to.busy - (from?.busy ?? 0)) / Math.max(1, to.total - (from?.total ?? 0)),
    };
  };
}
