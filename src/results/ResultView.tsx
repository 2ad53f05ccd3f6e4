import { CircleStop, RotateCw } from 'lucide-react';
import { Button } from '../ui/Button';
import { ErrorNote } from '../ui/Panel';
import { ResultBody } from './ResultBody';
import type { Normalised, TaskResultSnapshot } from '../mcp';
import type { ResultState } from '../tracker/task-store';

function StopButton({ onStop }: { onStop: () => void }) {
  return (
    <Button variant="ghost" onClick={onStop} title="Cancel this tasks/result and free its connection">
      <CircleStop size={12} /> Stop waiting
    </Button>
  );
}

function StateNote({
  state,
  onAskAgain,
  onStop,
}: {
  state: ResultState;
  onAskAgain: () => void;
  onStop: () => void;
}) {
  switch (state.state) {
    case 'none':
      return (
        <p className="text-sm text-slate-500">
          The result is fetched the moment the task completes or fails.
        </p>
      );
    case 'open-for-input':
      return (
        <p className="text-sm text-slate-500">
          The task needs input: tasks/result is open so the receiver can ask its questions; it brings the
          result when the task ends. <StopButton onStop={onStop} />
        </p>
      );
    case 'queued-for-input':
      return (
        <p className="text-sm text-slate-500">
          The task needs input; {state.position} in line for a connection to ask it on (the browser allows a
          few at once).
        </p>
      );
    case 'fetching':
      return (
        <p className="text-sm text-slate-500">
          Fetching the result (tasks/result, attempt {state.attempt})… <StopButton onStop={onStop} />
        </p>
      );
    case 'stopped':
      return (
        <p className="text-sm text-slate-500" data-testid="result-stopped">
          You stopped waiting for tasks/result.{' '}
          <Button variant="ghost" onClick={onAskAgain}>
            <RotateCw size={12} /> Ask again
          </Button>
        </p>
      );
    case 'not-ready':
      return (
        <p className="text-sm text-slate-500">
          The receiver says the result is not ready yet; polling tasks/get goes on.{' '}
          <Button variant="ghost" onClick={onAskAgain}>
            <RotateCw size={12} /> Ask again
          </Button>
        </p>
      );
    case 'retrying':
      return (
        <p className="text-sm text-amber-700 dark:text-amber-400">
          tasks/result failed ({state.error.message}); retrying.
        </p>
      );
    case 'unavailable':
      return (
        <ErrorNote title="No result">
          {state.error.message}{' '}
          <Button variant="ghost" onClick={onAskAgain}>
            <RotateCw size={12} /> Try again
          </Button>
        </ErrorNote>
      );
    case 'fetched':
      return null;
  }
}

/** A task's result as kept, or where fetching it stands. */
export function ResultView({
  taskId,
  answer,
  state,
  onAskAgain,
  onStop,
}: {
  taskId: string;
  answer: Normalised<TaskResultSnapshot> | undefined;
  state: ResultState;
  onAskAgain: () => void;
  onStop: () => void;
}) {
  if (!answer) return <StateNote state={state} onAskAgain={onAskAgain} onStop={onStop} />;
  return <ResultBody answer={answer} fileName={`task-${taskId.slice(0, 24)}-result.json`} />;
}
