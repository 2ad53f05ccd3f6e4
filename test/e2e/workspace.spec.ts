import { expect, test, type Page } from '@playwright/test';
import { runTool } from '../helpers/task-page';
import AxeBuilder from '@axe-core/playwright';
import { startDemoReceiver } from '../helpers/receivers';

/** Rows of the task list that are wholly inside the list's own visible box. */
const wholeRows = (page: Page) =>
  page.getByTestId('task-list').evaluate((list) => {
    const box = list.getBoundingClientRect();
    return [...list.querySelectorAll('[data-testid="task-row"]')].filter((row) => {
      const r = row.getBoundingClientRect();
      return r.height > 0 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
    }).length;
  });

test('at 1024×700 with the traffic drawer open, the task list shows at least eight rows and the URL field keeps 240 px', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  for (let i = 0; i < 10; i++) await runTool(page, 'short_ttl_job', { ttlMs: '60000' });
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
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  expect((await page.locator('aside').boundingBox())!.width).toBe(narrower);
  expect((await page.getByTestId('tools-split').boundingBox())!.height).toBe(tools);
});

test('the receiver card is one line once connected, and unfolds on demand', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  const section = page.getByTestId('receiver-section');
  await expect(page.getByTestId('server-name')).toHaveText('Taskscope demo receiver');
  await expect(page.getByTestId('server-card')).toBeHidden();
  expect((await section.boundingBox())!.height).toBeLessThan(48);
  await page.getByTestId('receiver-toggle').click();
  await expect(page.getByTestId('server-card')).toBeVisible();
  await expect(page.getByTestId('receiver-toggle')).toHaveAttribute('aria-expanded', 'true');
});

test('a receiver without CORS: the main pane says so and offers the relay, in full view; the relay is confirmed in a dialog', async ({
  page,
}) => {
  const noCors = await startDemoReceiver({ cors: false });
  try {
    await page.setViewportSize({ width: 1024, height: 700 });
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
    await expect(page.getByTestId('connection-status')).toContainText('Connected');
    await expect(page.getByTestId('connection-problem-pane')).toHaveCount(0);
  } finally {
    await noCors.close();
  }
});

test('after Disconnect the main pane says disconnected, not connected', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await page.getByRole('button', { name: 'Disconnect' }).click();
  await expect(page.getByTestId('connection-status')).toHaveText('Disconnected');
  await expect(page.locator('main')).toContainText('Disconnected from Taskscope demo receiver');
  await expect(page.locator('main')).not.toContainText('Connected to');
});

for (const theme of ['light', 'dark'] as const)
  test(`contrast, ${theme}: no text under 4.5:1 on the main screens (axe-core)`, async ({ page }) => {
    // axe over several screens: 27 s alone, twice that or more on a loaded machine.
    test.setTimeout(120_000);
    await page.emulateMedia({ colorScheme: theme });
    const check = async (screen: string) => {
      const results = await new AxeBuilder({ page }).withRules(['color-contrast']).analyze();
      const found = results.violations.flatMap((v) =>
        v.nodes.map((n) => `${screen}: ${n.target.join(' ')} — ${n.any[0]?.message ?? v.help}`),
      );
      expect(found, `${screen} in ${theme}`).toEqual([]);
    };
    await page.goto('/');
    await expect(page.getByTestId('connection-status')).toHaveText('Connected');
    await check('start');
    await page.getByTestId('receiver-toggle').click();
    await check('receiver card');
    await page.getByTestId('tool-slow_job').click();
    await check('run form');
    await runTool(page, 'slow_job', { durationMs: '600', steps: '2', pollIntervalMs: '200' });
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
    await page.goto('/?server=http://127.0.0.1:9/mcp');
    await expect(page.getByTestId('connection-problem-pane')).toBeVisible();
    await check('connection problem');
  });
