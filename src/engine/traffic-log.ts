import type { TrafficEvent } from '../mcp';
import { TRAFFIC_COUNT_CAP, addEvents, emptyLog, eventsOf, type TrafficCounts } from './traffic-rows';

/**
 * The traffic log, kept in the Worker: the ring of rows (request and answer paired) the drawer shows, bounded
 * by bytes and count. Events are added in bunches (one copy of the rows per batch, not per message).
 */
export class TrafficLog {
  private state = emptyLog();
  private incoming: TrafficEvent[] = [];

  add(event: TrafficEvent): void {
    this.incoming.push(event);
    if (this.incoming.length >= TRAFFIC_COUNT_CAP) this.settle();
  }

  clear(): void {
    this.state = emptyLog();
    this.incoming = [];
  }

  counts(): TrafficCounts {
    const { total, kept, rows } = this.settle();
    return { total, kept, rows: rows.length };
  }

  /** Every event the ring keeps (of one connection, when given), oldest first. */
  events(connectionId?: number): TrafficEvent[] {
    return eventsOf(this.settle().rows, connectionId);
  }

  private settle() {
    if (this.incoming.length > 0) {
      // Only this log holds its rows: no copy of up to 20,000 of them per batch.
      this.state = addEvents(this.state, this.incoming, 0, undefined, true);
      this.incoming = [];
    }
    return this.state;
  }
}
