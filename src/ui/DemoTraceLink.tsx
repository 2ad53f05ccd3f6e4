import { focusRing } from './Button';

/**
 * The recorded demo flow shipped in public/ (npm run trace:demo writes it), at the speed it was recorded:
 * a page load with ?trace= replays it with no receiver at all, its most telling task open.
 */
export const DEMO_TRACE_LINK = `/?trace=${encodeURIComponent('/demo-trace.json')}&speed=1`;

export function DemoTraceLink({ testId = 'demo-trace-link' }: { testId?: string }) {
  return (
    <a
      href={DEMO_TRACE_LINK}
      className={`rounded text-sky-700 underline dark:text-sky-300 ${focusRing}`}
      data-testid={testId}
    >
      Watch a recorded demo
    </a>
  );
}
