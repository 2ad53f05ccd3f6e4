import { connect, disconnect } from '../receiver/actions';
import { useConnection } from '../state/connection-store';

/**
 * Restart: the process is stopped with the connection (its live tasks are marked as ended with their session,
 * which was the process), and a new connection starts a new one.
 */
export async function restartStdio(): Promise<void> {
  const { url, headers } = useConnection.getState();
  await disconnect();
  await connect(url, headers);
}
