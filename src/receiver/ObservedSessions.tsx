import { Eye } from 'lucide-react';
import { focusRing } from '../ui/Button';
import { formatClock } from '../format/time';
import { oneLine } from '../format/control-chars';
import { useObserve } from '../state/observe-store';
import { useConnectionView } from '../state/connection-view';
import { observe } from './observe-actions';

/**
 * While the page observes a client through Taskscope's proxy: what is observed (the source and its upstream),
 * that nothing is sent, the proxy's note (a 401 passed: the `--header` way), and the source's client sessions
 * to pick from — name, protocol, tasks, last activity — the one shown marked.
 */
export function ObservedSessions() {
  const observing = useObserve((s) => s.connectionId !== undefined);
  const source = useObserve((s) => s.source);
  const news = useObserve((s) => s.news);
  const view = useConnectionView();
  if (!observing || source === undefined) return null;
  const sessions = news?.sessions ?? [];
  const muted = 'text-slate-600 dark:text-slate-300';
  return (
    <div className="space-y-2 px-3 pb-3 text-xs" data-testid="observed-sessions">
      <p className="flex items-start gap-1.5">
        <Eye size={14} className="mt-0.5 shrink-0 text-teal-600" aria-hidden />
        <span>
          <span className="font-medium" data-testid="observed-title">
            {view.kind === 'observing' ? view.title : `Observing ${oneLine(source)}`}
          </span>
          , through the proxy&apos;s <span className="font-mono">{oneLine(source)}</span>
          {news?.upstream ? (
            <>
              {' '}
              → <span className="font-mono break-all">{oneLine(news.upstream)}</span>
            </>
          ) : null}
          {news?.kind === 'stdio' ? ' (stdio)' : ''}. Taskscope only watches: it sends nothing in the
          client&apos;s session.
        </span>
      </p>
      {news?.note && (
        <p
          className="rounded bg-amber-50 p-2 text-amber-900 dark:bg-amber-950 dark:text-amber-200"
          data-testid="observed-note"
        >
          {oneLine(news.note)}
          {!news.note.includes('--header') && (
            <>
              {' '}
              Give the upstream a token with{' '}
              <code className="font-mono">
                taskscope proxy … --header &apos;Authorization: Bearer …&apos;
              </code>
              .
            </>
          )}
        </p>
      )}
      {news?.dropped ? (
        <p className={muted} data-testid="observed-dropped">
          {news.dropped} earlier messages were let go of before the page read them (the proxy&apos;s caps).
        </p>
      ) : null}
      {sessions.length === 0 ? (
        <p className={muted} data-testid="observed-empty">
          No client session yet: point a client at the proxy&apos;s client endpoint, and its session shows
          here.
        </p>
      ) : (
        <ul className="space-y-1" aria-label="Client sessions">
          {sessions.map((session) => {
            const shown = session.key === news?.selected;
            return (
              <li key={session.key}>
                <button
                  type="button"
                  aria-current={shown ? 'true' : undefined}
                  onClick={() => {
                    if (!shown) void observe(source, session.key);
                  }}
                  title={shown ? 'The session shown' : 'Show this client session'}
                  className={`flex w-full min-w-0 items-baseline gap-2 rounded px-2 py-1 text-left ring-1 ring-inset ${
                    shown
                      ? 'bg-teal-50 ring-teal-300 dark:bg-teal-950 dark:ring-teal-800'
                      : 'ring-slate-200 hover:bg-slate-50 dark:ring-slate-700 dark:hover:bg-slate-900'
                  } ${focusRing}`}
                  data-testid="observed-session"
                >
                  <span className="min-w-0 flex-1 truncate font-medium">{oneLine(session.label)}</span>
                  <span className={`shrink-0 ${muted}`}>
                    {session.era ?? 'protocol unknown'} · {session.tasks}{' '}
                    {session.tasks === 1 ? 'task' : 'tasks'} · {formatClock(session.lastAt)}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
