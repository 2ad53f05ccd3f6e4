import { historyKey } from '../engine/history/redact';
import type { EraChoice } from '../mcp';

const KEY = 'taskscope.era';
const CHOICES: readonly EraChoice[] = ['auto', '2025-11-25', '2026-07-28'];
const MAX_KEPT = 50;

function read(): Record<string, EraChoice> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(KEY) ?? '{}');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    const out: Record<string, EraChoice> = {};
    for (const [url, choice] of Object.entries(parsed))
      if (CHOICES.includes(choice as EraChoice) && url.length <= 2048) out[url] = choice as EraChoice;
    return out;
  } catch {
    return {};
  }
}

/** The protocol generation the person chose for a receiver; auto (found out per connect) unless they chose. */
export function eraChoice(url: string): EraChoice {
  return read()[historyKey(url)] ?? 'auto';
}

/** Kept in localStorage under the receiver's history key, so a secret in its URL is not written there. */
export function setEraChoice(url: string, choice: EraChoice): void {
  const key = historyKey(url);
  // The URL as typed was the key before: an entry under it goes too.
  const others = Object.entries(read()).filter(([kept]) => kept !== key && kept !== url);
  if (choice !== 'auto') others.push([key, choice]);
  const kept = Object.fromEntries(others.slice(-MAX_KEPT));
  try {
    localStorage.setItem(KEY, JSON.stringify(kept));
  } catch {
    // Storage refused (private mode, quota): the choice lasts for this connect only.
  }
}
