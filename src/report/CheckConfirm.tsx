import { useState } from 'react';
import { Play } from 'lucide-react';
import { CHECK_LIMITS, CHECK_STEPS, checkableTools, seconds } from '../engine/active-check/plan';
import { useConnection } from '../state/connection';
import { Button, focusRing } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { startCheck } from './actions';
import { useReceiverTools } from './hooks';

/** Asks before the check runs: it creates tasks on someone's server, and says what it will leave behind. */
export function CheckConfirm({ url, onClose }: { url: string; onClose: () => void }) {
  const tools = checkableTools(useReceiverTools());
  const canCancel = useConnection((s) => s.support?.cancel ?? false);
  const [tool, setTool] = useState(tools[0]?.tool.name ?? '');
  const picked = tools.find((t) => t.tool.name === tool) ?? tools[0];
  return (
    <Dialog
      title="Check this receiver?"
      onClose={onClose}
      testId="check-confirm"
      className="w-[min(36rem,95vw)]"
    >
      <div className="space-y-3 text-sm">
        <p>
          The check sends requests to <span className="font-mono [overflow-wrap:anywhere]">{url}</span> and{' '}
          <strong>creates tasks on that server</strong>: up to two runs of the tool below, with its default
          arguments only. It also asks about made-up task ids and cursors, calls tasks/result early, and tries
          methods the receiver does not declare.
        </p>
        <p data-testid="check-cleanup">
          {canCancel
            ? 'When it ends (or you press Stop), it cancels the tasks it started that still run.'
            : 'This receiver does not declare tasks/cancel: the tasks it starts are not cancelled but left to run out and expire at their ttl.'}
        </p>
        <p data-testid="check-limits">
          Each request waits {seconds(CHECK_LIMITS.requestMs)} at most ({seconds(CHECK_LIMITS.createMs)} for
          the call that starts a task); the whole check stops itself after {seconds(CHECK_LIMITS.overallMs)}.
        </p>
        <p className="text-xs text-slate-500">Steps: {CHECK_STEPS.map((s) => s.title).join(' · ')}.</p>
        {tools.length > 0 ? (
          <label className="flex flex-wrap items-center gap-2">
            <span>Tool to run as a task:</span>
            <select
              value={picked?.tool.name}
              onChange={(event) => setTool(event.target.value)}
              className={`rounded border border-slate-300 bg-white px-2 py-1 font-mono text-sm dark:border-slate-700 dark:bg-slate-900 ${focusRing}`}
              data-testid="check-tool"
            >
              {tools.map(({ tool: t }) => (
                <option key={t.name} value={t.name}>
                  {t.name}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <p className="text-amber-700 dark:text-amber-400">
            No tool here runs as a task with default arguments only: the check starts no task, and the steps
            that need one are skipped.
          </p>
        )}
        <div className="flex justify-end gap-2">
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button
            variant="primary"
            data-testid="confirm-check"
            onClick={() => {
              onClose();
              void startCheck(picked?.tool.name);
            }}
          >
            <Play size={13} /> Run the check
          </Button>
        </div>
      </div>
    </Dialog>
  );
}
