import type { TrafficEvent } from '../mcp';
import {
  TRAFFIC_BYTE_CAP,
  TRAFFIC_COUNT_CAP,
  addEvents,
  emptyLog,
  eventsOf,
  type RowWatcher,
  type TrafficCounts,
  type TrafficRow,
} from './traffic-rows';

/**
 * The traffic log, kept in the Worker: the ring of rows (request and answer paired) the drawer shows, bounded
 * by bytes and count. Events are added in bunches (one copy of the rows per batch, not per message).
 */
export class TrafficLog {
  private state = emptyLog();
  private incoming: TrafficEvent[] = [];
  /** Moves at each clear: an index over the rows starts again. */
  generation = 0;
  /** Told of rows paired and dropped (the drawer's window index), while one watches. */
  watcher: RowWatcher | undefined;

  constructor(private readonly caps = { bytes: TRAFFIC_BYTE_CAP, count: TRAFFIC_COUNT_CAP }) {}

  add(event: TrafficEvent): void {
    this.incoming.push(event);
    if (this.incoming.length >= this.caps.count) this.settle();
  }

  clear(): void {
    // Events not yet settled are let go unnumbered: the numbers run on from the rows' own.
    this.state = emptyLog(this.state.nextN);
    this.incoming = [];
    this.generation++;
  }

  counts(): TrafficCounts {
    const { total, kept, rows } = this.settle();
    return { total, kept, rows: rows.length };
  }

  /** The rows, oldest first; numbered without gaps (rows[i].n === rows[0].n + i). Read only. */
  rows(): readonly TrafficRow[] {
    return this.settle().rows;
  }

  /** Every event the ring keeps (of one connection, when given), oldest first. */
  events(connectionId?: number): TrafficEvent[] {
    return eventsOf(this.settle().rows, connectionId);
  }

  private settle() {
    if (this.incoming.length > 0) {
      // Only this log holds its rows: no copy of up to 20,000 of them per batch.
      this.state = addEvents(this.state, this.incoming, 0, this.caps, true, this.watcher);
      this.incoming = [];
    }
    return this.state;
  }
}
