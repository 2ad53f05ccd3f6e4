import { create } from 'zustand';
import type { ClassifiedError, ServerDescription, ServerTaskSupport } from '../mcp';

export type ConnectionStatus = 'idle' | 'connecting' | 'connected' | 'error' | 'closed';

export interface ConnectionState {
  /** Grows with every connect, so data from an older session is never read as the current one's. */
  id: number;
  url: string;
  headers: Record<string, string>;
  status: ConnectionStatus;
  server?: ServerDescription;
  support?: ServerTaskSupport;
  error?: ClassifiedError;
  /** Set while requests keep failing on a connected session: how many, since when, the last error. */
  degraded?: { failures: number; since: number; error: ClassifiedError };
  /** Set when the notification stream keeps closing right after it opens. */
  streamNote?: string;
}

export const useConnection = create<ConnectionState>()(() => ({
  id: 0,
  url: '',
  headers: {},
  status: 'idle',
}));
