import { useNow } from '../../state/clock';
import { formatMs } from '../core/ttl';

/** Time since `since`, on the page's one clock: a leaf, so the tick re-renders this text and nothing else. */
export function Elapsed({ since }: { since: number }) {
  const now = useNow();
  return <>{formatMs(Math.max(0, now - since))}</>;
}
