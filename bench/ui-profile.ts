/**
 * CPU time per poll, from CPU profiles (CDP `Profiler`) of the page and of its engine Worker taken over the
 * same window: the sampled time that was not idle, divided by the polls the receiver counted in that window.
 * Regressions show as milliseconds per poll, whatever the poll rate of the run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CDPSession } from '@playwright/test';
import type { HeapWatcher } from './ui-heap';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileFigures {
  /** ms of the window the thread was busy (not idle) */
  busyMs: number;
  windowMs: number;
  /** the heaviest self-time frames, ms */
  top: [string, number][];
}

/** Busy time and the heaviest frames of one profile; (idle) and (program) idle time are left out of busy. */
export function readProfile(profile: CpuProfile, topN = 8): ProfileFigures {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let busy = 0;
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    // timeDeltas[i] is the time before sample i; the time a sample stands for is the next delta.
    const ms = (deltas[i + 1] ?? 0) / 1000;
    const node = byId.get(samples[i]!);
    const name = node?.callFrame.functionName || '(anonymous)';
    if (name === '(idle)') continue;
    busy += ms;
    const where = node?.callFrame.url
      ? ` ${node.callFrame.url.replace(/^.*\//, '')}:${node.callFrame.lineNumber + 1}`
      : '';
    const key = `${name}${where}`;
    self.set(key, (self.get(key) ?? 0) + ms);
  }
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, topN);
  return { busyMs: busy, windowMs: (profile.endTime - profile.startTime) / 1000, top };
}

/**
 * Profiles the page's main thread and every worker for `ms`. With BENCH_UI_PROFILE_DIR set, the profiles are
 * also written there (`<label>-page.cpuprofile`, `<label>-worker-<i>.cpuprofile`), for DevTools or a closer read
 * (a build with `--minify false` keeps the names).
 */
export async function profileWindow(
  cdp: CDPSession,
  workers: HeapWatcher,
  ms: number,
  label = 'profile',
): Promise<{ page: ProfileFigures; workers: ProfileFigures[] }> {
  await cdp.send('Profiler.enable');
  await workers.inWorkers('Profiler.enable');
  await cdp.send('Profiler.start');
  await workers.inWorkers('Profiler.start');
  await new Promise((resolve) => setTimeout(resolve, ms));
  const page = (await cdp.send('Profiler.stop')).profile as unknown as CpuProfile;
  const inWorkers = (await workers.inWorkers('Profiler.stop')) as { profile: CpuProfile }[];
  const dir = process.env.BENCH_UI_PROFILE_DIR;
  if (dir) {
    mkdirSync(dir, { recursive: true });
    const name = label.replace(/[^a-z0-9]+/gi, '-');
    writeFileSync(path.join(dir, `${name}-page.cpuprofile`), JSON.stringify(page));
    inWorkers.forEach((w, i) =>
      writeFileSync(path.join(dir, `${name}-worker-${i}.cpuprofile`), JSON.stringify(w.profile)),
    );
  }
  return { page: readProfile(page), workers: inWorkers.map((w) => readProfile(w.profile)) };
}
