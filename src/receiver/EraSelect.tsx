import { useState } from 'react';
import type { EraChoice } from '../mcp';
import { connect } from './actions';
import { eraChoice, setEraChoice } from './era-choice';

/** Which generation to speak with this receiver: found out (auto) or chosen, remembered per receiver. */
export function EraSelect({ url, headers }: { url: string; headers: Record<string, string> }) {
  const [choice, setChoice] = useState<EraChoice>(() => eraChoice(url));
  return (
    <select
      aria-label="Protocol version to speak"
      title="Auto asks server/discover first (2026-07-28) and falls back to initialize (2025-11-25)"
      value={choice}
      data-testid="era-choice"
      onChange={(e) => {
        const next = e.target.value as EraChoice;
        setChoice(next);
        setEraChoice(url, next);
        void connect(url, headers);
      }}
      className="rounded bg-transparent text-xs text-slate-600 ring-1 ring-slate-200 dark:text-slate-300 dark:ring-slate-700"
    >
      <option value="auto">auto</option>
      <option value="2025-11-25">2025-11-25</option>
      <option value="2026-07-28">2026-07-28</option>
    </select>
  );
}
