import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { showsFocusRing } from '../helpers/focus-ring';
import { startDemoReceiver } from '../helpers/receivers';
import { connect, connectionStatus, expect, runTask, test } from './fixtures';

/**
 * What only a browser's layout shows: nothing overflows or overlaps in both themes at two sizes, the narrow
 * workspace keeps its rows and its URL field, focus shows, the theme follows the system, and no text is under
 * 4.5:1. The sizes and themes are looped inside each test, on one page, rather than a test per case.
 */

type Box = { x: number; y: number; width: number; height: number };

const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width - 0.5 &&
  b.x < a.x + a.width - 0.5 &&
  a.y < b.y + b.height - 0.5 &&
  b.y < a.y + a.height - 0.5;

async function box(page: Page, selector: string): Promise<Box> {
  const found = await page.locator(selector).boundingBox();
  expect(found, `${selector} is laid out`).not.toBeNull();
  return found!;
}

const cases = [
  { theme: 'light', width: 1280, height: 800 },
  { theme: 'dark', width: 1280, height: 800 },
  { theme: 'light', width: 1920, height: 1080 },
  { theme: 'dark', width: 1920, height: 1080 },
] as const;

test('layout in both themes at 1280×800 and 1920×1080: a large result and the traffic drawer open, nothing overflows or overlaps, focus shows; the theme follows the system and toggles', async ({
  connected: page,
}) => {
  // The widest content the demo has: a result over 1 MB with one very long line.
  await runTask(page, 'rich_result_job', { durationMs: '200', padKb: '1200' });
  await expect(page.getByTestId('result')).toContainText('the view is cut short');
  await expect(page.getByTestId('result').getByRole('heading', { name: 'Quarterly report' })).toBeVisible();
  await page.getByRole('button', { name: /^Traffic/ }).click();
  await expect(page.getByTestId('traffic-drawer').getByRole('row').first()).toBeVisible();

  for (const { theme, width, height } of cases) {
    const at = `${theme} at ${width}×${height}`;
    await page.setViewportSize({ width, height });
    // The theme is "system" until the person picks one: it follows the browser's colour scheme.
    await page.emulateMedia({ colorScheme: theme });
    if (theme === 'dark') await expect(page.locator('html')).toHaveClass(/dark/);
    else await expect(page.locator('html')).not.toHaveClass(/dark/);

    const widths = await page.evaluate(() => {
      const main = document.querySelector('main')!;
      return {
        page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        main: main.scrollWidth - main.clientWidth,
      };
    });
    expect(widths.page, `${at}: the page scrolls sideways`).toBeLessThanOrEqual(0);
    expect(widths.main, `${at}: the main pane scrolls sideways`).toBeLessThanOrEqual(0);

    const panels = {
      header: await box(page, 'body header >> nth=0'),
      aside: await box(page, 'aside'),
      main: await box(page, 'main'),
      drawer: await box(page, '[data-testid="traffic-drawer"]'),
    };
    const names = Object.keys(panels) as (keyof typeof panels)[];
    for (const [i, a] of names.entries())
      for (const b of names.slice(i + 1))
        expect(overlaps(panels[a], panels[b]), `${at}: ${a} overlaps ${b}`).toBe(false);
    for (const name of names) {
      const { x, y, width: w, height: h } = panels[name];
      expect(x + w, `${at}: ${name} ends past the right edge`).toBeLessThanOrEqual(width + 0.5);
      expect(y + h, `${at}: ${name} ends past the bottom`).toBeLessThanOrEqual(height + 0.5);
    }
    // The panes share the width between them, side by side, and the drawer sits below both.
    expect(panels.main.x).toBeGreaterThanOrEqual(panels.aside.x + panels.aside.width - 0.5);
    expect(panels.drawer.y).toBeGreaterThanOrEqual(panels.main.y + panels.main.height - 0.5);
    // The receiver card, folded, is one line of the sidebar.
    expect((await box(page, '[data-testid="receiver-section"]')).height, at).toBeLessThan(48);
    // The tools take their own height while the task list keeps room for eight rows: at 1080 px every demo
    // tool is in view, where a fixed fifth of the sidebar showed four of them.
    if (height >= 1080) {
      const tools = await page.getByTestId('tool-list').evaluate((list) => {
        const scroller = list.parentElement!.getBoundingClientRect();
        const rows = [...list.querySelectorAll('button')].map((b) => b.getBoundingClientRect());
        const inView = rows.filter((r) => r.top >= scroller.top - 0.5 && r.bottom <= scroller.bottom + 0.5);
        return { all: rows.length, inView: inView.length };
      });
      expect(tools.inView, `${at}: tools in view`).toBe(tools.all);
    }

    // Keyboard focus on a button shows a ring it does not have otherwise.
    await page.getByLabel('Receiver URL').focus();
    await page.keyboard.press('Tab');
    const button = page.getByTestId('headers-button');
    await expect(button).toBeFocused();
    expect(await button.evaluate(showsFocusRing), `${at}: no visible focus ring on the headers button`).toBe(
      true,
    );
  }

  // The toggle goes system → light → dark, whatever the system says.
  await expect(page.locator('html')).toHaveClass(/dark/);
  await page.getByRole('button', { name: 'Theme: system' }).click();
  await expect(page.locator('html')).not.toHaveClass(/dark/);
  await page.getByRole('button', { name: 'Theme: light' }).click();
  await expect(page.locator('html')).toHaveClass(/dark/);
});

/** Rows of the task list that are wholly inside the list's own visible box. */
const wholeRows = (page: Page) =>
  page.getByTestId('task-list').evaluate((list) => {
    const box = list.getBoundingClientRect();
    return [...list.querySelectorAll('[data-testid="task-row"]')].filter((row) => {
      const r = row.getBoundingClientRect();
      return r.height > 0 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
    }).length;
  });

test('at 1024×700: with the traffic drawer open the task list shows at least eight rows and the URL field keeps 240 px, the splits are remembered; a receiver without CORS gets a main pane in full view offering the relay', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.goto('/');
  await expect(connectionStatus(page)).toHaveText('Connected');
  for (let i = 0; i < 10; i++) await runTask(page, 'short_ttl_job', { ttlMs: '60000' });
  await expect(page.getByTestId('task-row').first()).toBeVisible();
  await page.getByRole('button', { name: /^Traffic/ }).click();
  await expect(page.getByTestId('traffic-drawer')).toHaveAttribute('data-open', 'true');
  await expect(page.getByTestId('traffic-drawer').getByRole('row').first()).toBeVisible();
  expect(await wholeRows(page)).toBeGreaterThanOrEqual(8);
  // The drawer takes its height from the main pane, beside the sidebar.
  const drawer = (await page.getByTestId('traffic-drawer').boundingBox())!;
  const aside = (await page.locator('aside').boundingBox())!;
  expect(drawer.x).toBeGreaterThanOrEqual(aside.x + aside.width - 0.5);
  expect(aside.y + aside.height).toBeGreaterThan(drawer.y + drawer.height / 2);

  for (const focused of [false, true]) {
    if (focused) await page.getByLabel('Receiver URL').focus();
    const url = (await page.getByLabel('Receiver URL').boundingBox())!;
    expect(url.width, focused ? 'focused' : 'at rest').toBeGreaterThanOrEqual(240);
  }
  // Nothing in the header is pushed off screen to make that room.
  const header = await page
    .locator('body header')
    .first()
    .evaluate((h) => h.scrollWidth - h.clientWidth);
  expect(header).toBeLessThanOrEqual(0);
  await expect(page.getByRole('button', { name: 'Theme: system' })).toBeInViewport();

  // The splits move and are remembered: a narrower sidebar and a taller tools split survive a reload.
  await page.getByTestId('sidebar-resize').focus();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  const narrower = (await page.locator('aside').boundingBox())!.width;
  expect(narrower).toBeLessThan(aside.width);
  await page.getByTestId('tools-resize').focus();
  await page.keyboard.press('ArrowDown');
  const tools = (await page.getByTestId('tools-split').boundingBox())!.height;
  await page.reload();
  await expect(connectionStatus(page)).toHaveText('Connected');
  expect((await page.locator('aside').boundingBox())!.width).toBe(narrower);
  expect((await page.getByTestId('tools-split').boundingBox())!.height).toBe(tools);

  // A receiver that answers without CORS for this page, at the same size.
  const noCors = await startDemoReceiver({ cors: false });
  try {
    await page.goto(`/?server=${encodeURIComponent(noCors.url)}`);
    const pane = page.locator('main').getByTestId('connection-problem-pane');
    await expect(pane).toBeVisible();
    await expect(pane.getByRole('heading')).toContainText('CORS');
    const offer = pane.getByTestId('relay-offer');
    await expect(offer).toBeVisible();
    // Wholly on screen, nothing to scroll to: the pane and its action are where the eye goes.
    await expect(offer).toBeInViewport({ ratio: 1 });
    await expect(pane).toBeInViewport({ ratio: 1 });
    expect(await page.locator('main').evaluate((m) => m.scrollTop)).toBe(0);
    // Not inside the sidebar any more, and the main pane does not say "Pick a tool".
    await expect(page.locator('aside').getByTestId('relay-offer')).toHaveCount(0);
    await expect(page.locator('main')).not.toContainText('Pick a tool');
    // Red is for the error alone: its explanation reads in the ordinary text colour.
    const colours = await pane.evaluate((p) => ({
      title: getComputedStyle(p.querySelector('h1')!).color,
      text: getComputedStyle(p.querySelector('[data-testid="connection-error"]')!).color,
    }));
    expect(colours.text).not.toBe(colours.title);

    await offer.click();
    const dialog = page.getByRole('dialog', { name: 'Connect through the local relay' });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText(noCors.url);
    await dialog.getByTestId('relay-confirm').click();
    await expect(connectionStatus(page)).toContainText('Connected');
    await expect(page.getByTestId('connection-problem-pane')).toHaveCount(0);
  } finally {
    await noCors.close();
  }
});

test('contrast in both themes: no text under 4.5:1 on the main screens (axe-core)', async ({ page }) => {
  // Each screen is opened once and checked in both themes: the theme follows the system's colour scheme live.
  test.setTimeout(120_000);
  const check = async (screen: string) => {
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      if (theme === 'dark') await expect(page.locator('html')).toHaveClass(/dark/);
      else await expect(page.locator('html')).not.toHaveClass(/dark/);
      // Colours that ease into the new theme are read once they have arrived.
      await page.evaluate(() =>
        Promise.all(
          document
            .getAnimations()
            .filter((a) => a instanceof CSSTransition)
            .map((a) => a.finished.catch(() => undefined)),
        ),
      );
      const results = await new AxeBuilder({ page }).withRules(['color-contrast']).analyze();
      const found = results.violations.flatMap((v) =>
        v.nodes.map((n) => `${screen}: ${n.target.join(' ')} — ${n.any[0]?.message ?? v.help}`),
      );
      expect(found, `${screen} in ${theme}`).toEqual([]);
    }
  };
  await connect(page);
  // The start screen with the receiver card open.
  const receiver = page.getByTestId('receiver-toggle');
  if ((await receiver.getAttribute('aria-expanded')) !== 'true') await receiver.click();
  await check('receiver card');
  await page.getByTestId('tool-slow_job').click();
  await check('run form');
  await runTask(page, 'slow_job', { durationMs: '600', steps: '2', pollIntervalMs: '200' });
  await expect(page.getByTestId('result')).toContainText('Finished');
  await page.getByRole('button', { name: /^Traffic/ }).click();
  await expect(page.getByTestId('traffic-drawer').getByRole('row').nth(3)).toBeVisible();
  await check('task detail and traffic');
  await page.getByTestId('overview-button').click();
  await check('overview');
  await page.getByTestId('inbox-button').click();
  await check('inbox');
  await page.getByTestId('open-report').click();
  await expect(page.getByTestId('report-card').getByTestId('report-count-fail')).toBeVisible();
  await check('report card');
  await page.keyboard.press('Escape');
  await page.goto('/?trace=/demo-trace.json&speed=instant');
  await expect(page.getByTestId('replay-bar')).toHaveAttribute('data-ended', 'true');
  await check('replay');
  await connect(page, 'http://127.0.0.1:9/mcp', { status: /./ });
  await expect(page.getByTestId('connection-problem-pane')).toBeVisible();
  await check('connection problem');
});
