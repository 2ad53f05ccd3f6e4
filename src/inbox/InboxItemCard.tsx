import { MessageSquareMore } from 'lucide-react';
import { useSelection } from '../state/selection';
import { Badge } from '../ui/Badge';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { ElicitationCard } from './ElicitationCard';
import { SamplingCard } from './SamplingCard';
import type { InboxItem } from './store';

export function InboxItemCard({ item, showTask = true }: { item: InboxItem; showTask?: boolean }) {
  const select = useSelection((s) => s.select);
  return (
    <article
      className="space-y-2 rounded-md border border-amber-300 bg-amber-50/40 p-3 dark:border-amber-800 dark:bg-amber-950/20"
      data-testid="inbox-item"
    >
      <header className="flex flex-wrap items-center gap-2 text-xs">
        <MessageSquareMore size={14} className="text-amber-600" />
        <span className="font-mono font-medium">{item.method}</span>
        <span className="text-slate-500">{new Date(item.receivedAt).toLocaleTimeString()}</span>
        {item.relatedTaskId ? (
          showTask && (
            <button
              type="button"
              className="font-mono text-sky-600 underline dark:text-sky-400"
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
      {item.state === 'pending' && (
        <ErrorBoundary label="This request" raw={() => item.params}>
          {item.method === 'elicitation/create' ? (
            <ElicitationCard item={item} />
          ) : item.method === 'sampling/createMessage' ? (
            <SamplingCard item={item} />
          ) : (
            <p className="text-sm">Taskscope cannot answer {item.method}.</p>
          )}
        </ErrorBoundary>
      )}
    </article>
  );
}
