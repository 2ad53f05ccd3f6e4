import { useState } from 'react';
import { RotateCcw } from 'lucide-react';
import { Button } from '../ui/Button';
import { useStdio } from '../receiver/stdio-store';
import { restartStdio } from './actions';

/** Restart where the main pane says the stdio server exited: the console's Restart, in the same words. */
export function RestartButton() {
  const stdio = useStdio((s) => s.current !== undefined);
  const [restarting, setRestarting] = useState(false);
  if (!stdio) return null;
  return (
    <Button
      variant="primary"
      disabled={restarting}
      onClick={() => {
        setRestarting(true);
        void restartStdio().finally(() => setRestarting(false));
      }}
      title="Start the command again, in a new connection"
      data-testid="problem-restart"
    >
      <RotateCcw size={14} aria-hidden /> Restart
    </Button>
  );
}
