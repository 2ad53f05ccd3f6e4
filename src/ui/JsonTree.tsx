import { JsonView, allExpanded, collapseAllNested, darkStyles, defaultStyles } from 'react-json-view-lite';
import 'react-json-view-lite/dist/index.css';

/** A collapsible JSON tree (react-json-view-lite renders values as text, never as HTML). Loaded on demand. */
export default function JsonTree({ value, expanded = false }: { value: unknown; expanded?: boolean }) {
  const dark = document.documentElement.classList.contains('dark');
  const data = typeof value === 'object' && value !== null ? value : { value };
  return (
    <div className="overflow-x-auto rounded border border-slate-200 text-xs dark:border-slate-800">
      <JsonView
        data={data as object}
        shouldExpandNode={expanded ? allExpanded : collapseAllNested}
        style={dark ? darkStyles : defaultStyles}
      />
    </div>
  );
}
