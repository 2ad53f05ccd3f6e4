import { lazy, Suspense } from 'react';
import { ClipboardCheck } from 'lucide-react';
import { Button, narrowLabel } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { useConnection } from '../state/connection-store';
import { closeReport, openReport, useReport } from './report-store';

/** The card and its rule book load on first opening: the page a person starts with stays small. */
const ReportCardBody = lazy(() => import('./ReportCard'));

export function ReportCardDialog() {
  const open = useReport((s) => s.open);
  if (!open) return null;
  return (
    <Dialog
      title="Receiver report card"
      onClose={closeReport}
      testId="report-card"
      className="w-[min(80rem,95vw)]"
    >
      <Suspense fallback={<p className="text-sm text-slate-600 dark:text-slate-300">Loading the card…</p>}>
        <ReportCardBody />
      </Suspense>
    </Dialog>
  );
}

/** The header's way in. */
export function ReportCardButton() {
  const connected = useConnection((s) => s.status === 'connected');
  return (
    <Button
      variant="ghost"
      onClick={openReport}
      title={
        connected ? 'Receiver report card: how well it follows the task rules' : 'Connect to a receiver first'
      }
      disabled={!connected}
      data-testid="open-report"
    >
      <ClipboardCheck size={14} aria-hidden /> <span className={narrowLabel}>Report card</span>
    </Button>
  );
}
