import { create } from 'zustand';
import type { ObservedNews } from '../engine/messages';
import { CLIENT_RULE_BY_ID, clientStrength, type ClientRuleId } from '../rules/client-catalogue';
import type { ClientCard } from '../rules/client-judge';

/**
 * What the page observes through Taskscope's proxy (`?observe=NAME`): the source, the client sessions it has
 * seen and the one shown. While `connectionId` is set the page watches a client's session and sends nothing in
 * it: the controls that would are off, with the reason (`PASSIVE_OBSERVING`).
 */
export interface ObserveState {
  /** The page's connection id the observing runs under. */
  connectionId?: number;
  /** The proxy's source, as `?observe=` names it. */
  source?: string;
  /** The engine's latest word: the source's kind, upstream, note, its client sessions, the one shown. */
  news?: ObservedNews;
  /** The page's token for /observed/* (X-Taskscope-Relay-Token): the console of a stdio source is read with it. */
  token?: string;
}

export const useObserve = create<ObserveState>()(() => ({}));

export const isObserving = () => useObserve.getState().connectionId !== undefined;

/** A live connection or a replay takes the page: the observing is over. */
export const endObserving = () =>
  useObserve.setState({ connectionId: undefined, source: undefined, news: undefined, token: undefined });

/** Why a control that would send something is off while a client's session is observed. */
export const PASSIVE_OBSERVING =
  "This is a client's session observed through Taskscope's proxy: Taskscope only watches it, so nothing can be sent.";

/** The client rules the observed client broke on one task: each rule's first offence there. */
export function clientBreaksOf(card: ClientCard | undefined, taskId: string): ClientTaskBreak[] {
  if (!card) return [];
  const out: ClientTaskBreak[] = [];
  for (const rule of card.rules) {
    if (rule.verdict !== 'fail' && rule.verdict !== 'warn') continue;
    const offence = rule.byTask?.find((o) => o.taskId === taskId);
    const def = CLIENT_RULE_BY_ID.get(rule.id);
    if (!offence || !def) continue;
    const strength = clientStrength(def, card.era, card.documentsFlavour);
    if (strength === 'MAY') continue;
    const source = def.source[card.era];
    out.push({
      id: rule.id,
      title: def.title,
      strength,
      detail: offence.detail,
      ...(offence.at !== undefined ? { at: offence.at } : {}),
      ...(source && /^https?:/.test(source) ? { spec: source } : {}),
    });
  }
  return out;
}

export interface ClientTaskBreak {
  id: ClientRuleId;
  title: string;
  strength: 'MUST' | 'SHOULD';
  at?: number;
  detail: string;
  spec?: string;
}

/** The client shown and its server, as the header names them: "Observing <client> ↔ <server>". */
export function observedPair(news: ObservedNews | undefined, serverName: string | undefined): string {
  const session = news?.sessions.find((s) => s.key === news.selected);
  const client = session?.label ?? 'a client';
  const server = session?.serverName ?? serverName ?? news?.upstream ?? 'its server';
  return `${client} ↔ ${server}`;
}
