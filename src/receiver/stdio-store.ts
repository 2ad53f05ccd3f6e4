import { create } from 'zustand';
import type { StdioRoute } from '../mcp';

/** The stdio server this tab is connected to through Taskscope's bridge, if any: what its console shows. */
export interface StdioConnection {
  /** The receiver URL, /stdio/<name>/mcp on this origin. */
  url: string;
  name: string;
  route: StdioRoute;
}

export const useStdio = create<{ current?: StdioConnection }>()(() => ({}));
