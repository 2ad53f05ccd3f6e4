import { Component, type ReactNode } from 'react';
import { limitJson } from '../mcp/json';
import { focusRing } from './Button';

interface Props {
  /** What this boundary holds, for the message ("The result", "The task list"). */
  label: string;
  /** The data being drawn, offered raw when drawing it failed. */
  raw?: () => unknown;
  children: ReactNode;
}

/** What a raw view shows at most: the point is to see what broke the view, not to page through megabytes. */
const RAW_CHARS = 100_000;

function rawText(raw: unknown): string {
  try {
    const text = JSON.stringify(limitJson(raw).value, null, 2) ?? String(raw);
    return text.length > RAW_CHARS ? `${text.slice(0, RAW_CHARS)}\n… (cut at ${RAW_CHARS} characters)` : text;
  } catch (error) {
    return `(cannot be written out: ${String(error)})`;
  }
}

/**
 * Around everything that draws receiver data: a render that throws (a value nested too deep, a shape no
 * view expected) shows what failed and the raw data, and the rest of the app keeps working.
 */
export class ErrorBoundary extends Component<Props, { error?: Error; showRaw: boolean }> {
  override state: { error?: Error; showRaw: boolean } = { showRaw: false };

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override render() {
    const { error, showRaw } = this.state;
    if (!error) return this.props.children;
    return (
      <div
        role="alert"
        className="m-2 space-y-2 rounded border border-red-300 bg-red-50 p-3 text-sm dark:border-red-900 dark:bg-red-950/40"
        data-testid="render-error"
      >
        <p className="font-medium text-red-700 dark:text-red-300">
          {this.props.label} could not be drawn: {error.message.slice(0, 300)}
        </p>
        <div className="flex gap-2 text-xs">
          {this.props.raw && (
            <button
              type="button"
              className={`rounded underline ${focusRing}`}
              onClick={() => this.setState({ showRaw: !showRaw })}
            >
              {showRaw ? 'Hide raw data' : 'Show raw data'}
            </button>
          )}
          <button
            type="button"
            className={`rounded underline ${focusRing}`}
            onClick={() => this.setState({ error: undefined })}
          >
            Try again
          </button>
        </div>
        {showRaw && this.props.raw && (
          <pre className="max-h-80 overflow-auto text-xs break-all whitespace-pre-wrap">
            {rawText(this.props.raw())}
          </pre>
        )}
      </div>
    );
  }
}
