// @vitest-environment jsdom
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { reactRoot } from '../../test/helpers/react-root';
import type { Command } from '../engine/messages';
import { NO_FILTER, type TrafficFilter } from '../engine/traffic-filter';
import type { TrafficLine, TrafficWindow } from '../engine/traffic-window';
import { applyTrafficBatch, useTraffic } from './traffic-store';
import { showTaskTraffic, useTrafficView } from './traffic-view-store';
import { TrafficDrawer } from './TrafficDrawer';
import { ROW_HEIGHT } from './TrafficTable';

const sent = vi.hoisted(() => [] as unknown[]);
vi.mock('../bridge/engine-bridge', () => ({
  getEngine: () => ({
    request: (command: unknown) => {
      sent.push(command);
      return Promise.resolve(null);
    },
  }),
}));

const view = reactRoot();
const drawer = () => view.container.querySelector<HTMLElement>('[data-testid="traffic-drawer"]')!;
const scroller = () => view.container.querySelector<HTMLElement>('[data-testid="traffic-rows"]')!;
const drawnRows = () =>
  [...view.container.querySelectorAll<HTMLElement>('[data-testid="traffic-row"]')].map((row) =>
    Number(row.dataset.n),
  );
const windowAsks = () =>
  sent.filter(
    (c): c is Extract<Command, { type: 'trafficWindow' }> => (c as Command).type === 'trafficWindow',
  );

const VIEW_HEIGHT = 200;
/** jsdom lays nothing out: the view is 200 px tall, and scrollTop is what was set (no clamping). */
const scrollTops = new WeakMap<Element, number>();
let layoutReads: { scrollHeight: number; rect: number };

beforeEach(() => {
  sent.length = 0;
  useTraffic.getState().clear();
  useTrafficView.setState({ open: true, filter: NO_FILTER, selected: null, follow: true });
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(VIEW_HEIGHT);
  Object.defineProperty(HTMLElement.prototype, 'scrollTop', {
    configurable: true,
    get() {
      return scrollTops.get(this as Element) ?? 0;
    },
    set(value: number) {
      scrollTops.set(this as Element, value);
    },
  });
  layoutReads = { scrollHeight: 0, rect: 0 };
  vi.spyOn(HTMLElement.prototype, 'scrollHeight', 'get').mockImplementation(() => {
    layoutReads.scrollHeight++;
    return 0;
  });
  const rect = Element.prototype.getBoundingClientRect;
  vi.spyOn(Element.prototype, 'getBoundingClientRect').mockImplementation(function (this: Element) {
    layoutReads.rect++;
    return rect.call(this);
  });
  // The view's height, said once as an observer would.
  vi.stubGlobal(
    'ResizeObserver',
    class {
      constructor(private readonly callback: ResizeObserverCallback) {}
      observe(target: Element) {
        this.callback(
          [{ target, contentRect: { height: VIEW_HEIGHT } } as unknown as ResizeObserverEntry],
          this as unknown as ResizeObserver,
        );
      }
      unobserve() {}
      disconnect() {}
    },
  );
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  delete (HTMLElement.prototype as { scrollTop?: number }).scrollTop;
});

const line = (n: number, change: Partial<TrafficLine> = {}): TrafficLine => ({
  n,
  seq: n,
  wallTime: 0,
  direction: 'out',
  opener: 'request',
  answered: true,
  method: 'tasks/get',
  taskId: `t-${n}`,
  kind: 'request',
  bytes: 10,
  ...change,
});

/** A window as the engine sends it: `filtered` rows, lines for [start, end). */
function windowOf(filtered: number, start: number, end: number, change: Partial<TrafficWindow> = {}) {
  const lines: TrafficLine[] = [];
  for (let i = start; i < end; i++) lines.push(line(i + 1));
  return { filter: NO_FILTER, connectionId: 0, filtered, start, lines, methods: ['tasks/get'], ...change };
}

function send(window: TrafficWindow) {
  act(() => applyTrafficBatch({ traffic: [], trafficDropped: 0, trafficEpoch: 0, trafficWindow: window }));
}

function scrollTo(top: number) {
  act(() => {
    scroller().scrollTop = top;
    scroller().dispatchEvent(new Event('scroll'));
  });
}

describe('the traffic drawer', () => {
  it('opens tall enough for a message’s bodies (45 % of the window, at least 320 px), then as tall as it was made', () => {
    act(() => view.root.render(<TrafficDrawer />));
    expect(drawer().style.height).toBe('45vh');
    expect(drawer().style.minHeight).toBe('320px');
    act(() => useTrafficView.getState().setHeight(400));
    expect(drawer().style.height).toBe('400px');
    expect(drawer().style.minHeight).toBe('');
    expect(localStorage.getItem('taskscope.trafficHeight')).toBe('400');
  });

  it('asks the engine for a window while open, and stops asking once closed', async () => {
    act(() => view.root.render(<TrafficDrawer />));
    expect(windowAsks()[0]?.window).toMatchObject({ filter: NO_FILTER, start: 0, follow: true });
    act(() => useTrafficView.setState({ open: false }));
    await act(async () => {});
    expect(windowAsks().at(-1)?.window).toBeNull();
    expect(sent.some((c) => (c as Command).type === 'trafficMirror')).toBe(false);
  });

  it('draws the filtered count’s height, the window’s rows in their places, holes elsewhere; a scroll asks for the rows there', async () => {
    useTrafficView.setState({ follow: false });
    act(() => view.root.render(<TrafficDrawer />));
    send(windowOf(1000, 0, 80));
    const table = view.container.querySelector('[role="table"]')!;
    expect(table.getAttribute('aria-rowcount')).toBe('1001');
    expect((scroller().firstElementChild as HTMLElement).style.height).toBe(`${1000 * ROW_HEIGHT}px`);
    expect(drawnRows()[0]).toBe(1);
    // Row 500 onwards is outside the window: nothing of it is drawn until the engine sends it.
    scrollTo(500 * ROW_HEIGHT);
    expect(drawnRows()).toEqual([]);
    await act(async () => {});
    const ask = windowAsks().at(-1)!.window!;
    expect(ask.follow).toBe(false);
    expect(ask.start).toBeLessThanOrEqual(500);
    expect(ask.start + ask.count).toBeGreaterThanOrEqual(500 + VIEW_HEIGHT / ROW_HEIGHT);
    send(windowOf(1000, ask.start, ask.start + ask.count));
    expect(drawnRows()).toContain(501);
  });

  it('follows the newest rows to the bottom without reading layout as batches come', () => {
    act(() => view.root.render(<TrafficDrawer />));
    send(windowOf(1000, 920, 1000));
    expect(scroller().scrollTop).toBe(1000 * ROW_HEIGHT - VIEW_HEIGHT);
    scrollTo(scroller().scrollTop);
    expect(drawnRows()).toContain(1000);
    layoutReads = { scrollHeight: 0, rect: 0 };
    for (let filtered = 1001; filtered <= 1010; filtered++) send(windowOf(filtered, filtered - 80, filtered));
    expect(scroller().scrollTop).toBe(1010 * ROW_HEIGHT - VIEW_HEIGHT);
    expect(layoutReads).toEqual({ scrollHeight: 0, rect: 0 });
  });

  it('keeps the rows in view put when the ring lets older rows go', () => {
    useTrafficView.setState({ follow: false });
    act(() => view.root.render(<TrafficDrawer />));
    send(windowOf(1000, 0, 120));
    scrollTo(50 * ROW_HEIGHT + 5);
    // Ten rows went from the top: the same rows are ten places higher.
    send({ ...windowOf(1000, 0, 110), lines: windowOf(1010, 10, 120).lines });
    expect(scroller().scrollTop).toBe(40 * ROW_HEIGHT + 5);
  });

  it('a scroll over rows not come yet stays where it went when they come', () => {
    useTrafficView.setState({ follow: false });
    act(() => view.root.render(<TrafficDrawer />));
    send(windowOf(1000, 0, 50));
    scrollTo(0);
    scrollTo(55 * ROW_HEIGHT);
    send(windowOf(1000, 0, 120));
    expect(scroller().scrollTop).toBe(55 * ROW_HEIGHT);
    expect(drawnRows()).toContain(56);
  });

  it('the filter bar: methods from the engine, a filter asked for, no row of the old filter under the new one', async () => {
    useTrafficView.setState({ follow: false });
    act(() => view.root.render(<TrafficDrawer />));
    send(windowOf(3, 0, 3, { methods: ['tasks/get', 'tools/list'] }));
    const options = [...view.container.querySelectorAll('[data-testid="traffic-method"] option')].map(
      (o) => o.textContent,
    );
    expect(options).toEqual(['any method', 'tasks/get', 'tools/list']);
    // A later window without methods keeps them.
    send(windowOf(4, 0, 4, { methods: undefined }));
    expect(view.container.querySelectorAll('[data-testid="traffic-method"] option')).toHaveLength(3);

    const filter: TrafficFilter = { ...NO_FILTER, method: 'tools/list' };
    act(() => useTrafficView.getState().setFilter({ method: 'tools/list' }));
    await act(async () => {});
    expect(windowAsks().at(-1)?.window?.filter).toEqual(filter);
    expect(drawnRows()).toEqual([]);
    send(windowOf(1, 0, 0, { filter, lines: [line(7, { method: 'tools/list' })] }));
    expect(drawnRows()).toEqual([7]);
    send(windowOf(0, 0, 0, { filter }));
    expect(view.container.querySelector('[data-testid="traffic-empty"]')?.textContent).toBe(
      'No message matches the filters.',
    );
  });

  it('opens a row: asks for it, shows it whole when it comes, and no longer follows meanwhile', async () => {
    act(() => view.root.render(<TrafficDrawer />));
    send(windowOf(3, 0, 3));
    act(() => view.container.querySelector<HTMLElement>('[data-n="2"] [data-keynav-item]')!.click());
    await act(async () => {});
    expect(windowAsks().at(-1)?.window).toMatchObject({ opened: 2, follow: false });
    const event = {
      seq: 2,
      at: 0,
      wallTime: 0,
      direction: 'out' as const,
      kind: 'request' as const,
      method: 'tasks/get',
      bytes: 10,
      message: { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: 't-2' } },
    };
    send(
      windowOf(3, 0, 3, {
        opened: { n: 2, first: event, method: 'tasks/get', kind: 'request', bytes: 10, cost: 10 },
      }),
    );
    expect(view.container.querySelector('[data-testid="traffic-detail"]')).not.toBeNull();
    // The ring let it go: closed, and the newest followed again.
    send(windowOf(3, 0, 3, { opened: null, asked: 2 }));
    await act(async () => {});
    expect(view.container.querySelector('[data-testid="traffic-detail"]')).toBeNull();
    expect(useTrafficView.getState().selected).toBeNull();
    expect(windowAsks().at(-1)?.window).toMatchObject({ follow: true });
    expect(windowAsks().at(-1)?.window).not.toHaveProperty('opened');
  });

  it('“Task traffic” opens the drawer on that task’s own rows, asked of the engine', async () => {
    useTrafficView.setState({ open: false, follow: false });
    act(() => view.root.render(<TrafficDrawer />));
    act(() => showTaskTraffic('t-1'));
    await act(async () => {});
    expect(windowAsks().at(-1)?.window).toMatchObject({
      filter: { ...NO_FILTER, taskId: 't-1', taskExact: true },
      follow: true,
    });
    expect(view.container.querySelector<HTMLInputElement>('[data-testid="traffic-task"]')?.value).toBe('t-1');
  });

  it('at the log’s cap, opening a row while following leaves the rows in view where they are', async () => {
    act(() => view.root.render(<TrafficDrawer />));
    send(windowOf(1000, 920, 1000));
    scrollTo(scroller().scrollTop);
    const bottom = 1000 * ROW_HEIGHT - VIEW_HEIGHT;
    // At the cap each batch adds as many rows as the ring lets go: the length stays, the rows move up.
    const shifted = (by: number) =>
      windowOf(1000, 920, 1000, { lines: windowOf(1000, 920 + by, 1000 + by).lines });
    send(shifted(10));
    send(shifted(20));
    expect(scroller().scrollTop).toBe(bottom);
    act(() => view.container.querySelector<HTMLElement>('[data-n="1015"] [data-keynav-item]')!.click());
    await act(async () => {});
    expect(scroller().scrollTop).toBe(bottom);
    expect(drawnRows()).toContain(1015);
  });

  it('keeps the message pane while the opened message is on its way', async () => {
    useTrafficView.setState({ follow: false });
    act(() => view.root.render(<TrafficDrawer />));
    send(windowOf(3, 0, 3));
    act(() => view.container.querySelector<HTMLElement>('[data-n="2"] [data-keynav-item]')!.click());
    await act(async () => {});
    expect(view.container.querySelector('[data-testid="traffic-opening"]')).not.toBeNull();
    expect(view.container.querySelector('[role="table"]')?.className).toContain('w-1/2');
  });

  it('closes a row asked for that the log no longer has, also one never shown', async () => {
    act(() => view.root.render(<TrafficDrawer />));
    send(windowOf(3, 0, 3, { opened: null }));
    act(() => view.container.querySelector<HTMLElement>('[data-n="2"] [data-keynav-item]')!.click());
    await act(async () => {});
    expect(useTrafficView.getState().selected).toBe(2);
    // The engine had sent null before: this window leaves `opened` out, and says which row it answers.
    send(windowOf(3, 0, 3, { asked: 2 }));
    await act(async () => {});
    expect(useTrafficView.getState().selected).toBeNull();
    expect(view.container.querySelector('[data-testid="traffic-opening"]')).toBeNull();
  });
});
