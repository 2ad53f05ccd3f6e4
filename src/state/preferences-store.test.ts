// @vitest-environment jsdom
import { beforeEach, describe, expect, it, vi } from 'vitest';

const KEY = 'taskscope:preferences';

async function loadPreferences() {
  vi.resetModules();
  const { usePreferences } = await import('./preferences-store');
  return usePreferences;
}

beforeEach(() => localStorage.clear());

describe('persisted preferences', () => {
  it('migrates version 0 (no minimum interval) and keeps what it had', async () => {
    localStorage.setItem(KEY, JSON.stringify({ state: { theme: 'dark', pollingPaused: true }, version: 0 }));
    const prefs = (await loadPreferences()).getState();
    expect(prefs).toMatchObject({ theme: 'dark', pollingPaused: true, minPollIntervalMs: 0 });
  });

  it('falls back to the defaults when what is stored is unreadable', async () => {
    localStorage.setItem(KEY, '{not json');
    const prefs = (await loadPreferences()).getState();
    expect(prefs).toMatchObject({ theme: 'system', pollingPaused: false, minPollIntervalMs: 0 });
  });

  it('clamps the minimum interval and stores it for the next load', async () => {
    const usePreferences = await loadPreferences();
    usePreferences.getState().setMinPollIntervalMs(10_000_000);
    expect(usePreferences.getState().minPollIntervalMs).toBe(600_000);
    usePreferences.getState().setMinPollIntervalMs(-5);
    expect(usePreferences.getState().minPollIntervalMs).toBe(0);
    usePreferences.getState().setMinPollIntervalMs(2000);
    expect(JSON.parse(localStorage.getItem(KEY)!)).toMatchObject({
      state: { minPollIntervalMs: 2000 },
      version: 2,
    });
  });

  it('keeps history by default (Preserve log), also for preferences stored before it existed', async () => {
    localStorage.setItem(
      KEY,
      JSON.stringify({ state: { theme: 'dark', minPollIntervalMs: 500 }, version: 1 }),
    );
    const prefs = (await loadPreferences()).getState();
    expect(prefs).toMatchObject({ theme: 'dark', minPollIntervalMs: 500, preserveLog: true });
  });
});
