import { create } from 'zustand';
import { persist } from 'zustand/middleware';

export type ThemeChoice = 'system' | 'light' | 'dark';

export interface Preferences {
  theme: ThemeChoice;
  /** Live polling for every task; off pauses all pollers (persisted, so a reload stays quiet). */
  pollingPaused: boolean;
  /** The user's floor for every poll interval, in ms; never makes polling faster than the receiver asks. */
  minPollIntervalMs: number;
  /** Keep what is observed per receiver in IndexedDB across reloads and reconnects (devtools' "Preserve log"). */
  preserveLog: boolean;
  setTheme: (theme: ThemeChoice) => void;
  setPollingPaused: (paused: boolean) => void;
  setMinPollIntervalMs: (ms: number) => void;
  setPreserveLog: (on: boolean) => void;
}

export const usePreferences = create<Preferences>()(
  persist(
    (set) => ({
      theme: 'system',
      pollingPaused: false,
      minPollIntervalMs: 0,
      preserveLog: true,
      setTheme: (theme) => set({ theme }),
      setPollingPaused: (pollingPaused) => set({ pollingPaused }),
      setMinPollIntervalMs: (ms) =>
        set({ minPollIntervalMs: Math.max(0, Math.min(600_000, Math.round(ms) || 0)) }),
      setPreserveLog: (preserveLog) => set({ preserveLog }),
    }),
    {
      name: 'taskscope:preferences',
      version: 2,
      // Version 0 had no minimum interval, version 1 no preserve log; anything unreadable gets the defaults.
      migrate: (persisted) =>
        ({ minPollIntervalMs: 0, preserveLog: true, ...(persisted as object) }) as Preferences,
    },
  ),
);

/** Applies the theme to <html>, following the system when asked to; returns the unsubscribe. */
export function applyTheme(): () => void {
  const media = window.matchMedia('(prefers-color-scheme: dark)');
  const apply = () => {
    const { theme } = usePreferences.getState();
    const dark = theme === 'dark' || (theme === 'system' && media.matches);
    document.documentElement.classList.toggle('dark', dark);
  };
  apply();
  media.addEventListener('change', apply);
  const unsubscribe = usePreferences.subscribe(apply);
  return () => {
    media.removeEventListener('change', apply);
    unsubscribe();
  };
}
