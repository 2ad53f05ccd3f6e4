// @vitest-environment jsdom
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { reactRoot } from '../../../test/helpers/react-root';
import { useConnection } from '../../state/connection-store';
import { newTrackedTask, type ObservationEntry } from '../../tracker/task-store';
import { ObservationTable } from './ObservationTable';

/**
 * The observations of a 2026-07-28 task as the engine records them (test/integration/dialect-2026.test.ts: the
 * cancel acknowledged by an empty answer, then confirmed), drawn in the task's table.
 */
const view = reactRoot();
beforeEach(() => {
  useConnection.setState({ id: 1, era: '2026-07-28', status: 'connected' });
  // jsdom lays nothing out: the table's scroller is given a size, so its virtual rows are drawn.
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(400);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
});
afterEach(() => {
  vi.restoreAllMocks();
});

const obs = (at: number, over: Partial<ObservationEntry>): ObservationEntry => ({
  kind: 'observation',
  at,
  source: 'poll',
  status: null,
  warnings: [],
  ...over,
});

describe('the observation table', () => {
  it('shows each new statusMessage, and reads the cancel as acknowledged (the receiver may still go on), no warning', () => {
    const task = newTrackedTask({
      taskId: 't',
      connectionId: 1,
      origin: 'created',
      firstSeenAt: 1000,
      status: 'cancelled',
      entries: [
        obs(1000, { source: 'create', status: 'working', statusMessage: 'Step 1/2: v2' }),
        obs(1500, { status: 'working', statusMessage: 'Step 1/2: v2' }),
        obs(2000, { status: 'working', statusMessage: 'Step 2/2: v2' }),
        obs(2100, { source: 'cancel' }),
        obs(2500, { status: 'cancelled', statusMessage: 'Step 2/2: v2' }),
      ],
    });
    act(() => view.root.render(<ObservationTable task={task} />));
    const rows = [...view.container.querySelectorAll('[data-testid="observations"] tbody tr[data-kind]')];
    expect(rows).toHaveLength(5);
    const text = rows.map((r) => r.textContent ?? '');
    // Newest first; a statusMessage is shown where it changed, not on every repeat.
    expect(text[0]).toContain('cancelled');
    expect(text[0]).not.toContain('Step');
    expect(text[1]).toContain('acknowledged');
    expect(text[1]).toContain('may still go on');
    expect(text[1]).not.toContain('⚠');
    expect(text[1]).not.toContain('(ignored)');
    expect(text[2]).toContain('Step 2/2: v2');
    expect(text[3]).not.toContain('Step');
    expect(text[4]).toContain('Step 1/2: v2');
  });

  it('mounts without reading layout: the sizes come from the ResizeObserver, once the browser has laid out', () => {
    // A ResizeObserver that reports when told, as the browser does after its layout.
    const observed = new Map<Element, ResizeObserverCallback>();
    class FakeObserver {
      constructor(private readonly callback: ResizeObserverCallback) {}
      observe(target: Element) {
        observed.set(target, this.callback);
      }
      unobserve(target: Element) {
        observed.delete(target);
      }
      disconnect() {
        for (const [target, callback] of observed) if (callback === this.callback) observed.delete(target);
      }
    }
    vi.stubGlobal('ResizeObserver', FakeObserver);
    // Every read that makes the browser lay out, and every scroll write.
    const reads: string[] = [];
    const counted = (
      name: 'clientHeight' | 'clientWidth' | 'offsetHeight' | 'scrollTop' | 'scrollHeight',
      value: number,
    ) =>
      vi.spyOn(HTMLElement.prototype, name, 'get').mockImplementation(() => {
        reads.push(name);
        return value;
      });
    counted('clientHeight', 400);
    counted('clientWidth', 800);
    counted('offsetHeight', 25);
    counted('scrollTop', 0);
    counted('scrollHeight', 1000);
    vi.spyOn(Element.prototype, 'getBoundingClientRect').mockImplementation(() => {
      reads.push('getBoundingClientRect');
      return new DOMRect(0, 0, 800, 25);
    });
    const scrollTo = vi.fn(() => reads.push('scrollTo'));
    Element.prototype.scrollTo = scrollTo as typeof Element.prototype.scrollTo;
    onTestFinished(() => {
      delete (Element.prototype as Partial<Element>).scrollTo;
    });
    const entries = Array.from({ length: 40 }, (_, i) =>
      obs(1000 + i * 1000, { status: 'working', statusMessage: `Step ${i}` }),
    );
    const task = newTrackedTask({
      taskId: 't',
      connectionId: 1,
      origin: 'created',
      firstSeenAt: 1000,
      status: 'working',
      entries,
    });
    act(() => view.root.render(<ObservationTable task={task} />));
    expect(reads).toEqual([]);
    const drawn = () => view.container.querySelectorAll('[data-testid="observations"] tbody tr[data-kind]');
    // Drawn at once from the table's own height, before any size is known.
    expect(drawn().length).toBeGreaterThan(10);

    // The browser lays out, then tells: a row of two lines takes its room.
    const firstRow = drawn()[0]!;
    act(() => {
      for (const [target, callback] of [...observed]) {
        const height = target === firstRow ? 50 : 25;
        const entry = { target, borderBoxSize: [{ blockSize: height, inlineSize: 800 }] };
        callback([entry as unknown as ResizeObserverEntry], {} as ResizeObserver);
      }
    });
    expect(observed.size).toBeGreaterThan(10);
    // Below the rows drawn, the rest at 25 px each: the first row's extra 25 px is counted where it is.
    const padBottom = view.container.querySelector<HTMLElement>('tbody tr[aria-hidden]:last-child');
    expect(padBottom?.style.height).toBe(`${(40 - drawn().length) * 25}px`);
    vi.unstubAllGlobals();
  });
});
