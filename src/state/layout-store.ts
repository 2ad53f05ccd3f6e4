import { create } from 'zustand';
import { persist } from 'zustand/middleware';

/** The sidebar's width: wide enough for a task row's badges and time, never most of the window. */
export const SIDEBAR_MIN = 240;
export const SIDEBAR_MAX = 560;
/** The tools' split: a header and a row or two at least (its default height: app/App.tsx). */
export const TOOLS_MIN = 72;

export interface LayoutState {
  sidebarWidth: number;
  /** The tools' split in px, or undefined for its default (the tools' own height, as the task list allows). */
  toolsHeight?: number;
  /** The receiver card shown whole; by default it is one line once connected. */
  receiverOpen: boolean;
  setSidebarWidth: (width: number) => void;
  setToolsHeight: (height: number) => void;
  setReceiverOpen: (open: boolean) => void;
}

const clamp = (value: number, min: number, max: number) => Math.round(Math.max(min, Math.min(max, value)));

/** The workspace's splits, remembered in this browser (a person sizes them once). */
export const useLayout = create<LayoutState>()(
  persist(
    (set) => ({
      sidebarWidth: 320,
      receiverOpen: false,
      setSidebarWidth: (width) => {
        // Whatever the window, the main pane keeps half of it.
        const most =
          typeof window === 'undefined' ? SIDEBAR_MAX : Math.min(SIDEBAR_MAX, window.innerWidth / 2);
        set({ sidebarWidth: clamp(width, SIDEBAR_MIN, Math.max(SIDEBAR_MIN, most)) });
      },
      setToolsHeight: (height) => set({ toolsHeight: Math.round(Math.max(TOOLS_MIN, height)) }),
      setReceiverOpen: (receiverOpen) => set({ receiverOpen }),
    }),
    { name: 'taskscope:layout', version: 1 },
  ),
);
