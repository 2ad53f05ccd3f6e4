import { MessageSquareMore } from 'lucide-react';
import { useSelection } from '../state/selection-store';
import { useReplay } from '../state/replay-store';
import { useObserve } from '../state/observe-store';
import { formatClock } from '../format/time';
import { Badge } from '../ui/Badge';
import { focusRing } from '../ui/Button';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { ElicitationCard } from './ElicitationCard';
import { SamplingCard } from './SamplingCard';
import type { InboxItem, SentAnswer } from './inbox-store';

/** A value as it went back to the receiver: strings as typed, anything else as JSON. */
function shown(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

/** What the person sent back, in full: the fields of an accepted form, or the reply and its model. */
function SentView({ sent }: { sent: SentAnswer }) {
  if (sent.kind === 'sampling')
    return (
      <div className="text-sm" data-testid="inbox-sent">
        <p className="text-xs text-slate-500">
          Replied as <span className="font-mono">{sent.model}</span> at {formatClock(sent.at)}:
        </p>
        <p className="mt-1 rounded bg-white px-2 py-1 [overflow-wrap:anywhere] whitespace-pre-wrap ring-1 ring-slate-200 ring-inset dark:bg-slate-900 dark:ring-slate-700">
          {sent.text}
        </p>
      </div>
    );
  if (sent.kind === 'sampling-declined')
    return (
      <p className="text-xs text-slate-500" data-testid="inbox-sent">
        Declined at {formatClock(sent.at)}: the receiver got an error, no reply.
      </p>
    );
  if (sent.action !== 'accept')
    return (
      <p className="text-xs text-slate-500" data-testid="inbox-sent">
        Sent <span className="font-mono">{sent.action}</span> at {formatClock(sent.at)}, with no content.
      </p>
    );
  const entries = Object.entries(sent.content ?? {});
  return (
    <div className="text-sm" data-testid="inbox-sent">
      <p className="text-xs text-slate-500">
        Accepted at {formatClock(sent.at)}, sending {entries.length === 0 ? 'no fields' : 'these values'}:
      </p>
      {entries.length > 0 && (
        <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 rounded bg-white px-2 py-1 text-xs ring-1 ring-slate-200 ring-inset dark:bg-slate-900 dark:ring-slate-700">
          {entries.map(([name, value]) => (
            <div key={name} className="contents">
              <dt className="font-mono text-slate-500">{name}</dt>
              <dd className="font-mono [overflow-wrap:anywhere] whitespace-pre-wrap" data-field={name}>
                {shown(value)}
              </dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  );
}

export function InboxItemCard({ item, showTask = true }: { item: InboxItem; showTask?: boolean }) {
  const select = useSelection((s) => s.select);
  const replaying = useReplay((s) => s.connectionId !== undefined);
  const observing = useObserve((s) => s.connectionId !== undefined);
  return (
    <article
      className="min-w-0 space-y-2 rounded-md border border-amber-300 bg-amber-50/40 p-3 dark:border-amber-800 dark:bg-amber-950/20"
      data-testid="inbox-item"
      data-state={item.state}
    >
      <header className="flex flex-wrap items-center gap-2 text-xs">
        <MessageSquareMore size={14} className="text-amber-600" />
        <span className="font-mono font-medium">{item.method}</span>
        <span className="text-slate-500 tabular-nums" data-testid="inbox-received">
          {formatClock(item.receivedAt)}
        </span>
        {item.relatedTaskId ? (
          showTask && (
            <button
              type="button"
              className={`rounded font-mono text-sky-600 underline dark:text-sky-400 ${focusRing}`}
              onClick={() => select({ kind: 'task', taskId: item.relatedTaskId as string })}
            >
              task {item.relatedTaskId.slice(0, 12)}
            </button>
          )
        ) : (
          <Badge>outside any task</Badge>
        )}
        {item.state !== 'pending' && (
          <Badge tone={item.state === 'answered' ? 'green' : 'neutral'}>{item.outcome ?? item.state}</Badge>
        )}
      </header>
      {item.state === 'pending' && observing ? (
        <p className="text-xs text-slate-500" data-testid="inbox-observed-note">
          Asked of the client Taskscope observes: the client answers it, Taskscope sends nothing.
        </p>
      ) : item.state === 'pending' && replaying ? (
        <p className="text-xs text-slate-500" data-testid="inbox-replay-note">
          Asked during the recording. A replay answers nothing: the recorded answer follows by itself.
        </p>
      ) : item.state === 'pending' ? (
        <ErrorBoundary label="This request" raw={() => item.params}>
          {item.method === 'elicitation/create' ? (
            <ElicitationCard item={item} />
          ) : item.method === 'sampling/createMessage' ? (
            <SamplingCard item={item} />
          ) : (
            <p className="text-sm">Taskscope cannot answer {item.method}.</p>
          )}
        </ErrorBoundary>
      ) : item.sent && item.state === 'answered' ? (
        <SentView sent={item.sent} />
      ) : (
        item.state === 'answered' && (
          <p className="text-xs text-slate-500" data-testid="inbox-sent-unknown">
            Answered before the values sent were recorded.
          </p>
        )
      )}
    </article>
  );
}
