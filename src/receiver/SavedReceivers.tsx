import { useEscapeLayer } from '../ui/useKeymap';
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { History, Pencil, TriangleAlert, X } from 'lucide-react';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import {
  savedReceivers,
  useSavedReceivers,
  type HeaderMap,
  type SavedReceiver,
  type SavedReceiversApi,
} from './saved-receivers-store';

const focusRing = 'outline-none focus-visible:ring-2 focus-visible:ring-sky-500';
const iconButton = `rounded p-1 text-slate-500 hover:bg-slate-100 hover:text-slate-800 dark:text-slate-400 dark:hover:bg-slate-800 dark:hover:text-slate-100 ${focusRing}`;

export const REMEMBER_WARNING =
  "Headers are stored unencrypted in this browser's storage for this site, readable by anyone with access to this browser profile.";

export function SavedReceivers({
  onPick,
  currentUrl,
  currentHeaders,
  api = savedReceivers,
}: {
  onPick: (url: string, headers: HeaderMap) => void;
  currentUrl: string;
  /** The headers in use for currentUrl; what "Remember headers" stores. Defaults to the saved ones. */
  currentHeaders?: HeaderMap;
  /** Tests and previews pass their own; the app uses the page's list. */
  api?: SavedReceiversApi;
}) {
  const receivers = useSavedReceivers(api);
  const [open, setOpen] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const listId = useId();

  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: Event) => {
      if (!rootRef.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [open]);
  // Escape through the app's one keymap, as the innermost menu (a rename field keeps its own Escape).
  useEscapeLayer(
    open,
    () => {
      setOpen(false);
      // Focus would otherwise fall to <body> when it was inside the list that is going away.
      rootRef.current?.querySelector<HTMLButtonElement>('[data-testid="saved-receivers-button"]')?.focus();
    },
    'menu',
  );

  const pick = (url: string) => {
    setOpen(false);
    onPick(url, api.headersFor(url));
  };

  return (
    <div ref={rootRef} className="relative">
      <Button
        variant="ghost"
        title="Saved receivers"
        aria-label="Saved receivers"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        onClick={() => setOpen((o) => !o)}
        className={focusRing}
        data-testid="saved-receivers-button"
      >
        <History size={14} />
      </Button>
      {open && (
        <div
          id={listId}
          data-testid="saved-receivers-list"
          className="absolute top-full right-0 z-20 mt-2 w-96 rounded-md border border-slate-200 bg-white p-1 shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          {receivers.length === 0 ? (
            <p className="p-2 text-xs text-slate-500 dark:text-slate-400">
              No saved receivers yet: each one you connect to is listed here.
            </p>
          ) : (
            <ul className="max-h-96 overflow-y-auto" aria-label="Saved receivers">
              {receivers.map((receiver) => (
                <ReceiverRow
                  key={receiver.url}
                  receiver={receiver}
                  current={receiver.url === currentUrl}
                  currentHeaders={currentHeaders}
                  api={api}
                  onPick={pick}
                />
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}

function ReceiverRow({
  receiver,
  current,
  currentHeaders,
  api,
  onPick,
}: {
  receiver: SavedReceiver;
  current: boolean;
  currentHeaders: HeaderMap | undefined;
  api: SavedReceiversApi;
  onPick: (url: string) => void;
}) {
  const [draft, setDraft] = useState<string | null>(null);
  const checkboxId = useId();
  const warningId = useId();
  const remember = receiver.rememberHeaders === true;

  const commit = () => {
    if (draft !== null) api.rename(receiver.url, draft);
    setDraft(null);
  };
  const onRenameKey = (event: KeyboardEvent<HTMLInputElement>) => {
    // Enter would otherwise submit the connection form this sits in.
    if (event.key === 'Enter') {
      event.preventDefault();
      commit();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      setDraft(null);
    }
  };

  return (
    <li
      data-testid="saved-receiver-row"
      data-url={receiver.url}
      aria-current={current ? 'true' : undefined}
      className={`rounded px-1 py-1 ${current ? 'bg-sky-50 dark:bg-sky-950/40' : ''}`}
    >
      <div className="flex items-center gap-1">
        {draft === null ? (
          <button
            type="button"
            onClick={() => onPick(receiver.url)}
            title={`Connect to ${receiver.url}`}
            className={`min-w-0 flex-1 rounded px-1.5 py-0.5 text-left hover:bg-slate-100 dark:hover:bg-slate-800 ${focusRing}`}
          >
            <span className="block truncate text-sm text-slate-800 dark:text-slate-100">{receiver.name}</span>
            <span className="block truncate font-mono text-[11px] text-slate-500 dark:text-slate-400">
              {receiver.url}
            </span>
          </button>
        ) : (
          <input
            autoFocus
            value={draft}
            maxLength={200}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={onRenameKey}
            onBlur={commit}
            aria-label={`Name for ${receiver.url}`}
            spellCheck={false}
            className="min-w-0 flex-1 rounded bg-slate-50 px-1.5 py-1 text-sm ring-1 ring-slate-300 outline-none ring-inset focus:ring-sky-500 dark:bg-slate-950 dark:ring-slate-700"
          />
        )}
        {receiver.relay && (
          <Badge tone="violet" title="Reached through the local relay">
            relay
          </Badge>
        )}
        <button
          type="button"
          className={iconButton}
          title="Rename"
          aria-label={`Rename ${receiver.name}`}
          // Keeps the field's blur from committing before the click toggles it.
          onMouseDown={(e) => draft !== null && e.preventDefault()}
          onClick={() => (draft === null ? setDraft(receiver.name) : commit())}
        >
          <Pencil size={12} />
        </button>
        <button
          type="button"
          className={iconButton}
          title="Forget this receiver and its headers"
          aria-label={`Forget ${receiver.name}`}
          onClick={() => api.forget(receiver.url)}
        >
          <X size={12} />
        </button>
      </div>
      {current && (
        <div className="mt-1 px-1.5 pb-1">
          <label
            htmlFor={checkboxId}
            className="flex items-center gap-1.5 text-xs text-slate-600 dark:text-slate-300"
          >
            <input
              id={checkboxId}
              type="checkbox"
              data-testid="remember-headers"
              checked={remember}
              aria-describedby={remember ? warningId : undefined}
              onChange={(e) =>
                api.setRemember(
                  receiver.url,
                  e.target.checked,
                  currentHeaders ?? api.headersFor(receiver.url),
                )
              }
              className={`rounded ${focusRing}`}
            />
            Remember headers
          </label>
          {remember && (
            <p
              id={warningId}
              data-testid="remember-warning"
              className="mt-1 flex gap-1 text-[11px] text-amber-800 dark:text-amber-300"
            >
              <TriangleAlert size={12} className="mt-px shrink-0" aria-hidden />
              {REMEMBER_WARNING}
            </p>
          )}
        </div>
      )}
    </li>
  );
}
