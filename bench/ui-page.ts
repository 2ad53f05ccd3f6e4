/**
 * What bench:ui runs inside Chromium pages. Each function is sent to the page as source by page.evaluate, so it
 * must stand alone: no imports, no outer variables. Every loop is bounded by time or count.
 */

export interface BareFetchResult {
  done: number;
  failed: number;
  ms: number;
}

/** A plain fetch loop, `inFlight` at a time, POSTing a tasks/get-like JSON-RPC message for `ms`. */
export async function bareFetchLoop({
  url,
  ms,
  inFlight,
}: {
  url: string;
  ms: number;
  inFlight: number;
}): Promise<BareFetchResult> {
  let done = 0;
  let failed = 0;
  let id = 0;
  const start = performance.now();
  const end = start + ms;
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': 'bench-bare',
    'mcp-protocol-version': '2025-11-25',
  };
  const lane = async () => {
    while (performance.now() < end) {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'tasks/get',
        params: { taskId: `t${id}` },
      });
      try {
        const response = await fetch(url, { method: 'POST', headers, body });
        await response.json();
        done++;
      } catch {
        failed++;
        if (failed > 1000) return;
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return { done, failed, ms: performance.now() - start };
}

export interface PhaseResult {
  frames: number[];
  longTasks: number[];
  scrolled: number;
}

/**
 * Frame times (between requestAnimationFrame callbacks) and long tasks for `ms`. With `scrollSelector`, scrolls
 * that element by `scrollStep` px every frame, turning at either end, as a person dragging through the list.
 */
export function measurePhase({
  ms,
  scrollSelector,
  scrollStep,
}: {
  ms: number;
  scrollSelector?: string;
  scrollStep: number;
}): Promise<PhaseResult> {
  return new Promise((resolve) => {
    const frames: number[] = [];
    const longTasks: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) longTasks.push(entry.duration);
    });
    observer.observe({ type: 'longtask' });
    const scroller = scrollSelector ? document.querySelector(scrollSelector) : null;
    let direction = 1;
    let scrolled = 0;
    let last = performance.now();
    const end = last + ms;
    const step = (t: number) => {
      frames.push(t - last);
      last = t;
      if (scroller) {
        const before = scroller.scrollTop;
        if (direction > 0 && before + scroller.clientHeight >= scroller.scrollHeight - 1) direction = -1;
        else if (direction < 0 && before <= 0) direction = 1;
        scroller.scrollTop = before + direction * scrollStep;
        scrolled += Math.abs(scroller.scrollTop - before);
      }
      if (t < end) requestAnimationFrame(step);
      else {
        // Long tasks are reported after they end; one more macrotask lets the last ones in.
        setTimeout(() => {
          observer.disconnect();
          resolve({ frames, longTasks, scrolled });
        }, 50);
      }
    };
    requestAnimationFrame(step);
  });
}

export interface ClickResult {
  /** ms from the click to the detail showing the row's task id in the DOM (its header, the click's own commit) */
  dom: number[];
  /** ms from the click to the whole detail in the DOM (its deferred part drawn: timeline, result, observations) */
  complete: number[];
  /** ms from the click to the frame after the whole detail */
  frame: number[];
  failed: number;
  /** Per click, the long tasks (ms) that began between the click and the frame after the whole detail. */
  longTasks: number[][];
}

/**
 * Clicks `count` different rendered task rows, one after another, timing each from the click to
 * `[data-testid=task-detail] [data-testid=task-id]` showing that row's task id (MutationObserver), then to the
 * detail's deferred part drawn (no `task-detail-more` left), and on to the next animation frame. Rows carry `data-task-id`; without it, the id shown must be in the row's text.
 */
export async function clickToDetail({
  count,
  timeoutMs,
}: {
  count: number;
  timeoutMs: number;
}): Promise<ClickResult> {
  const result: ClickResult = { dom: [], complete: [], frame: [], failed: 0, longTasks: [] };
  const long: PerformanceEntry[] = [];
  const longObserver = new PerformanceObserver((list) => long.push(...list.getEntries()));
  longObserver.observe({ type: 'longtask' });
  const shownId = () =>
    document.querySelector('[data-testid=task-detail] [data-testid=task-id]')?.textContent?.trim() ?? '';
  const clicked = new Set<string>();
  const key = (row: HTMLElement) => row.dataset.taskId ?? row.textContent ?? '';
  const candidatesNow = () =>
    Array.from(document.querySelectorAll<HTMLElement>('[data-testid=task-row]')).filter(
      (row) => !clicked.has(key(row)) && key(row) !== shownId(),
    );
  for (let k = 0; k < count; k++) {
    // Rows scrolled into view come from the engine a frame or two later: a person clicks one once it shows.
    let candidates = candidatesNow();
    for (let waited = 0; candidates.length === 0 && waited < timeoutMs; waited += 16) {
      await new Promise((r) => requestAnimationFrame(() => r(null)));
      candidates = candidatesNow();
    }
    const row = candidates[Math.min(candidates.length - 1, k * 2)];
    if (!row) {
      result.failed++;
      continue;
    }
    clicked.add(key(row));
    const wanted = row.dataset.taskId;
    const rowText = row.textContent ?? '';
    const shows = () => {
      const id = shownId();
      return id !== '' && (wanted ? id === wanted : rowText.includes(id));
    };
    const whole = () =>
      document.querySelector('[data-testid=task-detail] [data-testid=task-detail-more]') === null;
    const timing = await new Promise<{ dom: number; complete: number; frame: number } | null>((resolve) => {
      let start = 0;
      let dom: number | undefined;
      let settled = false;
      const finish = (value: { dom: number; complete: number; frame: number } | null) => {
        if (settled) return;
        settled = true;
        observer.disconnect();
        clearTimeout(timer);
        resolve(value);
      };
      const check = () => {
        if (settled || !shows()) return;
        const shownAt = dom ?? performance.now() - start;
        dom = shownAt;
        if (!whole()) return;
        const complete = performance.now() - start;
        settled = true;
        observer.disconnect();
        clearTimeout(timer);
        requestAnimationFrame(() => resolve({ dom: shownAt, complete, frame: performance.now() - start }));
      };
      const observer = new MutationObserver(check);
      observer.observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
      const timer = setTimeout(() => finish(null), timeoutMs);
      start = performance.now();
      row.click();
      check();
    });
    const clickEnd = performance.now();
    if (timing) {
      result.dom.push(timing.dom);
      result.complete.push(timing.complete);
      result.frame.push(timing.frame);
    } else result.failed++;
    await new Promise((r) => setTimeout(r, 300));
    // Long tasks are reported after they end: read once the pause has let them come.
    const clickStart = clickEnd - (timing?.frame ?? timeoutMs);
    result.longTasks.push(
      long.filter((e) => e.startTime >= clickStart - 1 && e.startTime <= clickEnd).map((e) => e.duration),
    );
  }
  longObserver.disconnect();
  return result;
}

/**
 * Opens the traffic drawer (closed before) and times it: from the click until its rows show, and the long tasks
 * that began in that time and the next half second (its first batch of the whole log lands then).
 */
export async function openDrawerTimed({ toggle }: { toggle: string }): Promise<{
  rowsMs: number | null;
  messages: number;
  longTasks: number[];
}> {
  const long: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => long.push(...list.getEntries()));
  observer.observe({ type: 'longtask' });
  const rows = () =>
    document.querySelectorAll('[data-testid=traffic-drawer] [data-testid=traffic-row]').length;
  const start = performance.now();
  document.querySelector<HTMLElement>(toggle)?.click();
  let rowsMs: number | null = null;
  for (let waited = 0; waited < 10_000; waited = performance.now() - start) {
    await new Promise((r) => requestAnimationFrame(() => r(null)));
    if (rows() > 0) {
      rowsMs = performance.now() - start;
      break;
    }
  }
  await new Promise((r) => setTimeout(r, 500));
  observer.disconnect();
  // "(40,123 messages, last 20000 kept, …)": what the drawer holds is the kept count when the log is at its cap.
  const count = document.querySelector('[data-testid=traffic-count]')?.textContent ?? '';
  const held = /last ([\d,]+) kept/.exec(count)?.[1] ?? /[\d,]+/.exec(count)?.[0] ?? '0';
  return { rowsMs, messages: Number(held.replace(/,/g, '')), longTasks: long.map((e) => e.duration) };
}

/** True when a button (the status filter) reads `all <n>`. */
export function listShowsAll(n: number): boolean {
  const wanted = new RegExp(`(^|\\s)all\\s+${n}(?!\\d)`);
  return Array.from(document.querySelectorAll('button')).some((b) => wanted.test(b.textContent ?? ''));
}
