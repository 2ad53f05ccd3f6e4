import { expect, test, type Page } from '@playwright/test';
import { showsFocusRing } from '../helpers/focus-ring';
import { runTool } from '../helpers/task-page';

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

for (const { theme, width, height } of cases) {
  test(`layout, ${theme} at ${width}×${height}: a large result and the traffic drawer open, nothing overflows or overlaps, focus shows`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height });
    await page.emulateMedia({ colorScheme: theme });
    await page.goto('/');
    await expect(page.getByTestId('connection-status')).toHaveText('Connected');
    if (theme === 'dark') await expect(page.locator('html')).toHaveClass(/dark/);
    else await expect(page.locator('html')).not.toHaveClass(/dark/);

    // The widest content the demo has: a result over 1 MB with one very long line.
    await runTool(page, 'rich_result_job', { durationMs: '200', padKb: '1200' });
    await expect(page.getByTestId('result')).toContainText('the view is cut short');
    await expect(page.getByTestId('result').getByRole('heading', { name: 'Quarterly report' })).toBeVisible();
    await page.getByRole('button', { name: /^Traffic/ }).click();
    await expect(page.getByTestId('traffic-drawer').getByRole('row').first()).toBeVisible();

    const widths = await page.evaluate(() => {
      const main = document.querySelector('main')!;
      return {
        page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        main: main.scrollWidth - main.clientWidth,
      };
    });
    expect(widths.page, 'the page scrolls sideways').toBeLessThanOrEqual(0);
    expect(widths.main, 'the main pane scrolls sideways').toBeLessThanOrEqual(0);

    const panels = {
      header: await box(page, 'body header >> nth=0'),
      aside: await box(page, 'aside'),
      main: await box(page, 'main'),
      drawer: await box(page, '[data-testid="traffic-drawer"]'),
    };
    const names = Object.keys(panels) as (keyof typeof panels)[];
    for (const [i, a] of names.entries())
      for (const b of names.slice(i + 1))
        expect(overlaps(panels[a], panels[b]), `${a} overlaps ${b}`).toBe(false);
    for (const name of names) {
      const { x, y, width: w, height: h } = panels[name];
      expect(x + w, `${name} ends past the right edge`).toBeLessThanOrEqual(width + 0.5);
      expect(y + h, `${name} ends past the bottom`).toBeLessThanOrEqual(height + 0.5);
    }
    // The panes share the width between them, side by side, and the drawer sits below both.
    expect(panels.main.x).toBeGreaterThanOrEqual(panels.aside.x + panels.aside.width - 0.5);
    expect(panels.drawer.y).toBeGreaterThanOrEqual(panels.main.y + panels.main.height - 0.5);

    // Keyboard focus on a button shows a ring it does not have otherwise.
    await page.getByLabel('Receiver URL').focus();
    await page.keyboard.press('Tab');
    const button = page.getByTestId('headers-button');
    await expect(button).toBeFocused();
    expect(await button.evaluate(showsFocusRing), 'no visible focus ring on the headers button').toBe(true);
  });
}
