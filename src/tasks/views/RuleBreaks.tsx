import { ExternalLink, TriangleAlert } from 'lucide-react';
import type { TaskRuleBreak } from '../../rules/task-judge';
import { Badge } from '../../ui/Badge';
import { focusRing } from '../../ui/Button';
import { safeHref } from '../../ui/safe-url';
import { formatClock } from '../../format/time';

/** A rule broken on this task, by either side. */
type Break = Omit<TaskRuleBreak, 'id'> & { id: string };

/**
 * The rules the receiver (or, for an observed task, the client) broke on this task, where the task is looked
 * at: one line each, with the rule's strength, what was seen and when (a click finds it in the observations),
 * and the rule's text in the spec.
 */
export function RuleBreaks({
  breaks,
  onShow,
  side = 'receiver',
}: {
  breaks: readonly Break[];
  onShow: (at: number) => void;
  side?: 'receiver' | 'client';
}) {
  if (breaks.length === 0) return null;
  const who = side === 'client' ? 'The client' : 'The receiver';
  const must = breaks.some((b) => b.strength === 'MUST');
  return (
    <section
      aria-label="Rules broken on this task"
      className="space-y-1 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm dark:border-amber-800 dark:bg-amber-950/40"
      data-testid={side === 'client' ? 'client-rule-breaks' : 'rule-breaks'}
    >
      <h2 className="flex items-center gap-1.5 font-semibold text-amber-900 dark:text-amber-200">
        <TriangleAlert size={14} aria-hidden />
        {breaks.length === 1 ? `${who} broke a rule` : `${who} broke ${breaks.length} rules`} on this task
        {must ? ' (a MUST: the report card fails it)' : ''}
      </h2>
      <ul className="space-y-1">
        {breaks.map((b, i) => {
          const href = safeHref(b.spec);
          const at = b.at;
          return (
            <li
              key={i}
              className="flex flex-wrap items-baseline gap-x-2"
              data-testid="rule-break"
              data-rule={b.id}
            >
              <Badge tone={b.strength === 'MUST' ? 'red' : 'amber'}>{b.strength}</Badge>
              <span className="font-medium">{b.title}:</span>
              <span>{b.detail}</span>
              {at !== undefined && (
                <button
                  type="button"
                  onClick={() => onShow(at)}
                  className={`rounded text-xs text-slate-700 underline tabular-nums dark:text-slate-300 ${focusRing}`}
                  title="Show this moment in the observations"
                >
                  {formatClock(at, { millis: true })}
                </button>
              )}
              {href && (
                <a
                  href={href}
                  target="_blank"
                  rel="noopener noreferrer"
                  className={`inline-flex items-center gap-0.5 rounded text-xs text-sky-800 underline dark:text-sky-300 ${focusRing}`}
                  title="The rule in the specification"
                  data-testid="rule-link"
                >
                  the rule <ExternalLink size={11} aria-hidden />
                </a>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
