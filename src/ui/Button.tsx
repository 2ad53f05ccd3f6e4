import type { ComponentPropsWithRef } from 'react';

/**
 * The keyboard focus ring every interactive piece wears: shown for keyboard focus only (focus-visible), so a
 * click leaves no ring behind.
 */
export const focusRing =
  'outline-none focus-visible:ring-2 focus-visible:ring-sky-500 focus-visible:ring-offset-1 focus-visible:ring-offset-white dark:focus-visible:ring-sky-400 dark:focus-visible:ring-offset-slate-950';

/** A header button's words: hidden (still its name) below 1280 px, where the receiver URL needs the room. */
export const narrowLabel = 'max-xl:sr-only';

const variants = {
  primary:
    'bg-sky-700 text-white hover:bg-sky-800 disabled:bg-slate-300 disabled:text-slate-600 dark:disabled:bg-slate-800 dark:disabled:text-slate-400',
  ghost:
    'text-slate-600 hover:bg-slate-100 disabled:text-slate-300 dark:text-slate-300 dark:hover:bg-slate-800 dark:disabled:text-slate-600',
  outline:
    'ring-1 ring-inset ring-slate-300 text-slate-700 hover:bg-slate-50 disabled:text-slate-400 dark:ring-slate-700 dark:text-slate-200 dark:hover:bg-slate-800',
  danger:
    'ring-1 ring-inset ring-red-300 text-red-700 hover:bg-red-50 dark:ring-red-900 dark:text-red-300 dark:hover:bg-red-950',
} as const;

export function Button({
  variant = 'outline',
  className = '',
  ...props
}: ComponentPropsWithRef<'button'> & { variant?: keyof typeof variants }) {
  return (
    <button
      type="button"
      {...props}
      className={`inline-flex items-center justify-center gap-1.5 rounded-md px-2.5 py-1 text-sm font-medium whitespace-nowrap transition-colors disabled:cursor-not-allowed ${variants[variant]} ${focusRing} ${className}`}
    />
  );
}
