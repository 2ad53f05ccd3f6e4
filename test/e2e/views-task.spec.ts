import type { Locator } from '@playwright/test';
import { connect, expect, runTask, test } from './fixtures';
import { taskRow as row } from '../helpers/task-page';

/**
 * Layout, which only a browser shows, on one page: the detail's TTL figure never cut, the headers menu never
 * over "Cancel task", a forbidden tool's buttons and a row's time each on one line, and a result over 1 MB
 * inside its pane. What the detail draws from a task's record (headline, call, progress, timeline, row times)
 * is checked in src/tasks/views/TaskDetail.test.tsx and src/tools/RunToolForm.test.tsx; what the engine does
 * with progress, log lines and plain calls in test/integration/engine.test.ts.
 */

/** Whether an element's text is cut (ellipsis, clipped) or wraps onto a second line. */
async function cutOrWrapped(locator: Locator): Promise<{ cut: boolean; lines: number }> {
  return locator.evaluate((el) => {
    // Lines of text only: an icon beside the text has a top of its own.
    const tops = new Set<number>();
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent?.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) tops.add(Math.round(r.bottom));
    }
    return { cut: el.scrollWidth > el.clientWidth + 1, lines: tops.size };
  });
}

/** Whether the page or the main pane scrolls sideways. */
const overflowsSideways = (locator: Locator) =>
  locator.evaluate(
    (m) =>
      m.scrollWidth > m.clientWidth ||
      document.documentElement.scrollWidth > document.documentElement.clientWidth,
  );

test('layout: the TTL figure is never cut, the headers menu never covers "Cancel task", a forbidden form’s buttons and a row’s time stay on one line, a result over 1 MB stays inside its pane', async ({
  page,
}) => {
  await connect(page);
  // A forbidden tool's form: one line per button.
  await page.getByTestId('tool-echo').click();
  const form = page.getByTestId('run-form');
  await expect(form.getByTestId('no-task-reason')).toContainText('taskSupport: forbidden');
  for (const name of ['Run as task', 'Call without task'])
    expect(await cutOrWrapped(form.getByRole('button', { name }))).toEqual({ cut: false, lines: 1 });

  // ask_user waits for input: its row carries the status and "needs you", and its time still fits.
  const asking = await runTask(page, 'ask_user');
  await expect(row(page, asking.taskId)).toContainText('needs you');
  const time = row(page, asking.taskId).getByTestId('task-time');
  expect(await cutOrWrapped(time)).toEqual({ cut: false, lines: 1 });
  const [rowBox, timeBox] = [await row(page, asking.taskId).boundingBox(), await time.boundingBox()];
  expect(timeBox!.x + timeBox!.width).toBeLessThanOrEqual(rowBox!.x + rowBox!.width);

  // A result over 1 MB: the long line wraps and its block scrolls by itself.
  await runTask(page, 'rich_result_job', { durationMs: '200', padKb: '1200' });
  const result = page.getByTestId('result');
  await expect(result).toContainText('the view is cut short');
  // Measured once the markdown has loaded in place of its plain-text stand-in.
  await expect(result.getByRole('heading', { name: 'Quarterly report' })).toBeVisible();
  await expect(result.getByTestId('long-text')).toContainText('Appendix');
  const main = page.locator('main');
  expect(await overflowsSideways(main)).toBe(false);
  const block = await result.getByTestId('long-text').evaluate((b) => ({
    scroll: b.scrollHeight,
    client: b.clientHeight,
    width: b.scrollWidth,
    w: b.clientWidth,
  }));
  expect(block.scroll).toBeGreaterThan(block.client);
  expect(block.width).toBeLessThanOrEqual(block.w);
  // The raw view scrolls inside its own box too.
  await result.getByRole('button', { name: 'Raw' }).click();
  expect(await overflowsSideways(main)).toBe(false);

  // The TTL figure and the menu, on a task expired from 1 s on and never purged: the demo's faults case
  // keep-beyond-ttl keeps the task, so it reads expired for as long as the test looks (the demo itself purges
  // at the ttl, a moment later). It runs for ten minutes, so "Cancel task" is there throughout.
  await connect(page, '/demo/mcp?faults=keep-beyond-ttl');
  const { detail } = await runTask(page, 'job', { durationMs: '600000' }, { ttl: '1000' });
  const countdown = detail.getByTestId('ttl-countdown');
  await expect(countdown).toContainText('expired — the receiver may purge it now');
  const shown = await countdown.evaluate((el) => {
    const dd = el.closest('dd')!;
    return { cut: dd.scrollWidth > dd.clientWidth + 1, title: el.getAttribute('title') };
  });
  expect(shown.cut).toBe(false);
  expect(shown.title).toContain('expired — the receiver may purge it now');

  // The headers menu, open over the detail, leaves "Cancel task" clear and on top.
  const cancel = detail.getByRole('button', { name: 'Cancel task' });
  await expect(cancel).toBeVisible();
  await page.getByTestId('headers-button').click();
  await expect(page.getByTestId('headers-menu')).toBeVisible();
  // The detail's layout settles as the task's first answers arrive (timeline, observations): the check waits
  // for a settled layout in which the menu is clear of the button and the button is what is on top at its
  // centre. The detail can grow past the fold (elementFromPoint is null outside the viewport): the button is
  // brought into view first, as a person scrolls to it.
  await expect
    .poll(() =>
      cancel.evaluate((element) => {
        element.scrollIntoView({ block: 'center' });
        const menuBox = document.querySelector('[data-testid="headers-menu"]')?.getBoundingClientRect();
        const box = element.getBoundingClientRect();
        if (!menuBox) return 'no menu';
        const overlap =
          menuBox.x < box.x + box.width &&
          box.x < menuBox.x + menuBox.width &&
          menuBox.y < box.y + box.height &&
          box.y < menuBox.y + menuBox.height;
        if (overlap) return 'the menu overlaps the button';
        const top = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
        return top && element.contains(top) ? 'clear' : `covered by ${top?.tagName ?? 'nothing'}`;
      }),
    )
    .toBe('clear');
  await cancel.click();
  await expect(detail.getByTestId('status-headline')).toContainText('Cancelled');
});
