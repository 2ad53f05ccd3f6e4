import { Inbox } from 'lucide-react';
import { EmptyState } from '../ui/Panel';
import { focusRing, narrowLabel } from '../ui/Button';
import { InboxItemCard } from './InboxItemCard';
import { useInbox } from './inbox-store';

/** Everything receivers asked, the waiting first; answered ones stay for the record. */
export function InboxView() {
  const items = useInbox((s) => s.items);
  const refused = useInbox((s) => s.refused);
  const pending = items.filter((i) => i.state === 'pending');
  const done = items
    .filter((i) => i.state !== 'pending')
    .slice(-50)
    .reverse();
  if (items.length === 0) {
    return (
      <EmptyState icon={<Inbox size={24} />} title="Nothing to answer">
        When a receiver asks for input (elicitation) or a model reply (sampling), the request waits here.
      </EmptyState>
    );
  }
  return (
    <div className="max-w-3xl space-y-3 p-4" data-testid="inbox-view">
      <h1 className="text-sm font-semibold">Waiting for you ({pending.length})</h1>
      {refused && (
        <p className="text-xs text-amber-700 dark:text-amber-400" data-testid="inbox-refused">
          {refused}.
        </p>
      )}
      {pending.map((item) => (
        <InboxItemCard key={item.key} item={item} />
      ))}
      {done.length > 0 && (
        <h2 className="pt-4 text-xs font-semibold tracking-wide text-slate-500 uppercase">Answered</h2>
      )}
      {done.map((item) => (
        <InboxItemCard key={item.key} item={item} />
      ))}
    </div>
  );
}

export function InboxButton({ onOpen }: { onOpen: () => void }) {
  const count = useInbox((s) => s.items.filter((i) => i.state === 'pending').length);
  return (
    <button
      type="button"
      onClick={onOpen}
      className={`relative flex items-center gap-1.5 rounded-md p-1.5 text-sm font-medium hover:bg-slate-100 dark:hover:bg-slate-800 ${focusRing} ${count > 0 ? 'text-amber-700 dark:text-amber-400' : 'text-slate-600 dark:text-slate-300'}`}
      aria-label={`Inbox, ${count} waiting`}
      title="Inbox: what receivers ask of you"
      data-testid="inbox-button"
    >
      <Inbox size={16} aria-hidden />
      <span className={narrowLabel} aria-hidden>
        Inbox
      </span>
      {count > 0 && (
        <span className="absolute -top-0.5 -right-0.5 rounded-full bg-amber-500 px-1 text-[10px] leading-4 font-semibold text-white">
          {count}
        </span>
      )}
    </button>
  );
}
