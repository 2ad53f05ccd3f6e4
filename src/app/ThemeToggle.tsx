import { Monitor, Moon, Sun } from 'lucide-react';
import { usePreferences, type ThemeChoice } from '../state/preferences-store';
import { focusRing } from '../ui/Button';

const next: Record<ThemeChoice, ThemeChoice> = { system: 'light', light: 'dark', dark: 'system' };
const icon = { system: Monitor, light: Sun, dark: Moon };

export function ThemeToggle() {
  const theme = usePreferences((s) => s.theme);
  const setTheme = usePreferences((s) => s.setTheme);
  const Icon = icon[theme];
  return (
    <button
      type="button"
      onClick={() => setTheme(next[theme])}
      title={`Theme: ${theme} (click for ${next[theme]})`}
      aria-label={`Theme: ${theme}`}
      className={`rounded-md p-1.5 text-slate-500 hover:bg-slate-100 dark:text-slate-400 dark:hover:bg-slate-800 ${focusRing}`}
    >
      <Icon size={16} />
    </button>
  );
}
