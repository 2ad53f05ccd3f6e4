import { create } from 'zustand';
import type { ReplayInfo, ReplayNews, ReplaySpeed } from '../engine/messages';

/**
 * The replay of a trace, as the page knows it: which recording, where its virtual time stands, and why a file
 * could not be opened. While `info` is set, no receiver is contacted and live-only actions are off.
 */
export interface ReplayState {
  /** The page's connection id the replay runs under; batches of any other are not the replay's. */
  connectionId?: number;
  info?: ReplayInfo;
  news?: ReplayNews;
  /** The speed the person chose (the engine's news follows it). */
  speed: ReplaySpeed;
  /** What was wrong with the last trace the person tried to open: shown until the next try. */
  errors?: string[];
  warnings?: string[];
  /** A trace is being read or validated. */
  opening: boolean;
  /**
   * The receiver the page was on before the replay (or would connect to): the header offers it, since the
   * trace's own receiver may be long gone (the shipped demo trace's is a recorder's loopback port).
   */
  live?: { url: string; headers: Record<string, string> };
  /** The trace's path on this origin when it was opened from one (?trace=): the address names it. */
  source?: string;
}

export const useReplay = create<ReplayState>()(() => ({ speed: 4, opening: false }));

/** A replay is on (or being opened): nothing may be sent to a receiver. */
export const isReplaying = () => useReplay.getState().connectionId !== undefined;

/** A live connection takes the page back: the replay is over. */
export const endReplay = () =>
  useReplay.setState({
    connectionId: undefined,
    info: undefined,
    news: undefined,
    live: undefined,
    source: undefined,
  });

/** The replay's virtual time now, following the engine's last anchor; undefined when no replay is on. */
export function replayNow(realNow = Date.now()): number | undefined {
  const { info, news } = useReplay.getState();
  if (!info || !news) return undefined;
  if (!news.playing) return news.at;
  const speed = news.speed === 'instant' ? 1 : news.speed;
  return Math.min(news.endedAt, news.at + Math.max(0, realNow - news.realAt) * speed);
}
