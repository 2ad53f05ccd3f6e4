import { beforeEach, describe, expect, it } from 'vitest';
import type { TrafficEvent } from '../mcp';
import { TRAFFIC_CAPACITY, useTraffic } from './store';

const event = (seq: number): TrafficEvent => ({
  seq,
  at: seq,
  wallTime: seq,
  direction: 'out',
  kind: 'request',
  method: 'tasks/get',
  id: seq,
  bytes: 10,
  message: {},
});

beforeEach(() => useTraffic.getState().clear());

describe('the traffic ring', () => {
  it('keeps the newest messages up to its capacity and counts every one, dropped ones too', () => {
    useTraffic.getState().pushMany(Array.from({ length: TRAFFIC_CAPACITY - 10 }, (_, i) => event(i)));
    useTraffic.getState().pushMany(
      Array.from({ length: 30 }, (_, i) => event(TRAFFIC_CAPACITY - 10 + i)),
      5,
    );
    const { events, total } = useTraffic.getState();
    expect(events).toHaveLength(TRAFFIC_CAPACITY);
    expect(events[0]?.seq).toBe(20);
    expect(events.at(-1)?.seq).toBe(TRAFFIC_CAPACITY + 19);
    expect(total).toBe(TRAFFIC_CAPACITY + 20 + 5);
  });

  it('clear empties the list and resets the count', () => {
    useTraffic.getState().pushMany([event(1), event(2)]);
    useTraffic.getState().clear();
    expect(useTraffic.getState()).toMatchObject({ events: [], total: 0 });
  });
});
