import type { ReactNode } from 'react';

export function Panel({
  title,
  actions,
  children,
  className = '',
  wideActions = false,
}: {
  title: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
  /** The actions take the rest of the header's width (a search field beside the title). */
  wideActions?: boolean;
}) {
  return (
    <section className={`flex min-h-0 flex-col ${className}`}>
      <header className="flex min-h-9 shrink-0 items-center justify-between gap-2 border-b border-slate-200 px-3 py-1 dark:border-slate-800">
        <h2 className="shrink-0 text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-300">
          {title}
        </h2>
        {actions && (
          <div className={`flex items-center gap-1 ${wideActions ? 'min-w-0 flex-1 justify-end' : ''}`}>
            {actions}
          </div>
        )}
      </header>
      {children}
    </section>
  );
}

export function EmptyState({
  icon,
  title,
  children,
}: {
  icon?: ReactNode;
  title: string;
  children?: ReactNode;
}) {
  return (
    <div className="flex flex-col items-center justify-center gap-2 px-6 py-10 text-center text-sm text-slate-500 dark:text-slate-400">
      {icon && <div className="text-slate-400 dark:text-slate-500">{icon}</div>}
      <p className="font-medium text-slate-700 dark:text-slate-300">{title}</p>
      {children && <div className="max-w-sm">{children}</div>}
    </div>
  );
}

export function ErrorNote({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div
      role="alert"
      className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200"
    >
      <p className="font-medium">{title}</p>
      {children && <div className="mt-1 text-red-700 dark:text-red-300">{children}</div>}
    </div>
  );
}
