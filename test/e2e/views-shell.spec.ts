import type { Page } from '@playwright/test';
import { expect, runTask, test } from './fixtures';
import { showsFocusRing } from '../helpers/focus-ring';
import { watchText } from '../helpers/task-page';

/**
 * The keyboard, which only a browser shows: shortcuts, the layers Escape closes, the lists the arrows move
 * through, Tab reaching every control with a ring, and the clipboard. What the page draws from records (the
 * tool search, the instructions, the inbox's answered items, the image, the copy button's words, the times)
 * is checked by the component tests beside each component.
 */

const CLOCK_MS = /^\d{2}:\d{2}:\d{2}\.\d{3}$/;

/** Focus on the page itself, where keys are shortcuts rather than text. */
async function focusPage(page: Page) {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
}

const drawer = (page: Page) => page.getByTestId('traffic-drawer');
const focusedTestId = (page: Page) =>
  page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid ?? null);

/** What has focus, by its probe mark, and whether it shows a ring (focus is put back after looking). */
async function focusedWithRing(page: Page) {
  const active = await page.evaluateHandle(() => document.activeElement ?? document.body);
  const probe = await active.evaluate((element) =>
    element instanceof HTMLElement && element !== document.body ? (element.dataset.tabProbe ?? '') : '',
  );
  const ring = probe === '' ? false : await active.evaluate(showsFocusRing);
  await active.dispose();
  return { probe, ring };
}

test('the shortcuts: ? opens the overlay, / the task search, and Escape closes the innermost layer first; the headers menu also closes on a press outside or a new selection', async ({
  connected: page,
}) => {
  // ? opens the overlay, a dialog closed by Escape or its button; typed in a field, it is text.
  await focusPage(page);
  await page.keyboard.press('?');
  const overlay = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(overlay).toBeVisible();
  await expect(overlay).toContainText('Search tasks');
  await expect(overlay).toContainText('Close the innermost menu, dialog or drawer');
  await expect(overlay).toContainText('Move through the focused list');
  // The traffic drawer's key is part of the same keymap.
  await expect(overlay).toContainText('Open or close the traffic drawer');
  await page.keyboard.press('Escape');
  await expect(overlay).toBeHidden();
  await page.getByTestId('shortcuts-button').click();
  await expect(overlay).toBeVisible();
  await overlay.getByRole('button', { name: 'Close' }).click();
  await expect(overlay).toBeHidden();
  await expect(page.getByTestId('shortcuts-button')).toBeFocused();
  const toolSearch = page.getByTestId('tool-search');
  await toolSearch.press('?');
  await expect(toolSearch).toHaveValue('?');
  await expect(overlay).toBeHidden();
  await toolSearch.fill('');

  // / focuses the task search, but is typed as text inside a field.
  await focusPage(page);
  await page.keyboard.press('/');
  await expect(page.getByLabel('Search tasks')).toBeFocused();
  await expect(page.getByLabel('Search tasks')).toHaveValue('');
  await toolSearch.click();
  await page.keyboard.type('a/b');
  await expect(toolSearch).toHaveValue('a/b');
  await expect(toolSearch).toBeFocused();
  await toolSearch.fill('');

  // Escape closes the innermost layer first: headers menu, saved receivers, the overlay, then the drawer.
  await page.getByRole('button', { name: /^Traffic/ }).click();
  await expect(drawer(page)).toHaveAttribute('data-open', 'true');
  // The drawer's times, to the millisecond in the one 24-hour form.
  const times = drawer(page).getByTestId('traffic-time');
  await expect(times.first()).toBeVisible();
  for (const text of await times.allTextContents()) expect(text).toMatch(CLOCK_MS);
  const headersButton = page.getByTestId('headers-button');
  const headersMenu = page.getByTestId('headers-menu');
  await headersButton.click();
  await expect(headersMenu).toBeVisible();
  await expect(page.locator('#headers')).toBeFocused();
  await page.locator('#headers').fill('X-Trace: on');
  await page.keyboard.press('Escape');
  await expect(headersMenu).toBeHidden();
  await expect(drawer(page)).toHaveAttribute('data-open', 'true');
  // Focus goes back to the button that opened the menu, not to the page.
  await expect(headersButton).toBeFocused();

  await page.getByTestId('saved-receivers-button').click();
  await expect(page.getByTestId('saved-receivers-list')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('saved-receivers-list')).toBeHidden();
  await expect(drawer(page)).toHaveAttribute('data-open', 'true');

  await page.keyboard.press('?');
  await expect(page.getByTestId('shortcuts-overlay')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('shortcuts-overlay')).toBeHidden();
  await expect(drawer(page)).toHaveAttribute('data-open', 'true');

  await page.keyboard.press('Escape');
  await expect(drawer(page)).toHaveAttribute('data-open', 'false');
  await expect(drawer(page).getByRole('table')).toHaveCount(0);

  // t opens and closes it from the keyboard as well.
  await focusPage(page);
  await page.keyboard.press('t');
  await expect(drawer(page)).toHaveAttribute('data-open', 'true');
  await page.keyboard.press('t');
  await expect(drawer(page)).toHaveAttribute('data-open', 'false');

  // Opened after the menu, the drawer still lies beneath it: the menu goes first. Its values stayed.
  await headersButton.click();
  await expect(headersMenu).toBeVisible();
  await expect(page.locator('#headers')).toHaveValue('X-Trace: on');
  await page.keyboard.press('Shift+Tab');
  await expect(headersButton).toBeFocused();
  await page.keyboard.press('t');
  await expect(drawer(page)).toHaveAttribute('data-open', 'true');
  await expect(headersMenu).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(headersMenu).toBeHidden();
  await expect(drawer(page)).toHaveAttribute('data-open', 'true');
  await page.keyboard.press('Escape');
  await expect(drawer(page)).toHaveAttribute('data-open', 'false');

  // The headers menu: a press inside keeps it, one outside closes it.
  await headersButton.click();
  await page.locator('#headers').click();
  await expect(headersMenu).toBeVisible();
  await page.locator('main').click({ position: { x: 400, y: 400 } });
  await expect(headersMenu).toBeHidden();
  // And a selection change with no press anywhere (as a keyboard or a script makes it) closes it.
  await headersButton.click();
  await expect(headersMenu).toBeVisible();
  await page.getByTestId('tool-echo').evaluate((b) => (b as HTMLButtonElement).click());
  await expect(page.getByTestId('run-form')).toBeVisible();
  await expect(headersMenu).toBeHidden();
});

test('the lists: up and down move through the tools, the tasks and the traffic, Enter opens; Tab reaches every control with a focus ring; copy puts the result on the clipboard', async ({
  connected: page,
  context,
}) => {
  // The tool list: down from the search enters it, up from the first tool goes back to the search.
  const toolList = page.getByTestId('tool-list');
  const search = page.getByTestId('tool-search');
  // Connected is said before tools/list has answered: the list fills a moment later.
  await expect.poll(() => toolList.getByRole('button').count()).toBeGreaterThan(3);
  const tools = await toolList
    .getByRole('button')
    .evaluateAll((buttons) => buttons.map((b) => (b as HTMLElement).dataset.testid));
  expect(tools.length).toBeGreaterThan(3);
  await search.focus();
  await page.keyboard.press('ArrowDown');
  expect(await focusedTestId(page)).toBe(tools[0]);
  await page.keyboard.press('ArrowUp');
  await expect(search).toBeFocused();
  // Back in the search, keys are text again, and down enters the (filtered) list once more.
  await page.keyboard.type('job');
  await expect(search).toHaveValue('job');
  const firstMatch = await toolList.getByRole('button').first().getAttribute('data-testid');
  await page.keyboard.press('ArrowDown');
  await expect(toolList.getByTestId(firstMatch!)).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(search).toBeFocused();
  await expect(search).toHaveValue('job');
  // Nothing was opened on the way.
  await expect(page.getByTestId('run-form')).toHaveCount(0);
  await search.fill('');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  expect(await focusedTestId(page)).toBe(tools[2]);
  await page.keyboard.press('ArrowUp');
  expect(await focusedTestId(page)).toBe(tools[1]);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('run-form')).toBeVisible();
  await expect(page.getByTestId(tools[1]!)).toHaveAttribute('aria-current', 'true');

  // A result to copy, and controls of every kind for Tab to reach.
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const { detail } = await runTask(page, 'rich_result_job', { durationMs: '200' });
  await expect(detail.getByTestId('result')).toContainText('Quarterly report');
  const copy = page.getByTestId('copy-result');
  await expect(copy).toHaveAttribute('data-copy-state', 'idle');
  // "Copied" is for a moment (1.5 s): what the button says is recorded, so a late look still sees it.
  const said = await watchText(page, '[data-testid="copy-result"]');
  await copy.click();
  await expect.poll(said).toContain('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('Quarterly report');

  // The traffic log: up and down as through the other lists.
  await page.getByRole('button', { name: /^Traffic/ }).click();
  const times = page.getByRole('region', { name: 'Traffic' }).getByTestId('traffic-time');
  await expect(times.nth(2)).toBeVisible();
  await times.first().focus();
  await page.keyboard.press('ArrowDown');
  await expect(times.nth(1)).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(times.first()).toBeFocused();

  // Every visible, enabled control, each given a mark to be recognised by when Tab reaches it.
  const controls = await page.evaluate(() => {
    const selector =
      'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';
    const all = [...document.querySelectorAll<HTMLElement>(selector)].filter((element) => {
      const box = element.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && getComputedStyle(element).visibility !== 'hidden';
    });
    return all.map((element, i) => {
      element.dataset.tabProbe = String(i);
      return `${element.tagName.toLowerCase()} "${(element.getAttribute('aria-label') ?? element.textContent ?? '').trim().slice(0, 40)}"`;
    });
  });
  expect(controls.length).toBeGreaterThan(30);
  await focusPage(page);
  const reached = new Set<string>();
  const withoutRing: string[] = [];
  for (let i = 0; i < controls.length + 20; i++) {
    await page.keyboard.press('Tab');
    const { probe, ring } = await focusedWithRing(page);
    if (probe === '') continue;
    // Round the page once: back at a control already seen, every stop has been visited.
    if (reached.has(probe)) break;
    reached.add(probe);
    if (!ring) withoutRing.push(controls[Number(probe)]!);
  }
  const unreached = controls.filter((_, i) => !reached.has(String(i)));
  expect(unreached, 'controls Tab never reaches').toEqual([]);
  expect(withoutRing, 'controls with no visible focus ring').toEqual([]);

  // The task list (one stop for Tab, so looked at after the sweep): three more tasks from ids the receiver
  // does not know, rows without running anything.
  for (const id of ['kb-one', 'kb-two', 'kb-three']) {
    await page.getByLabel('Task id to follow').fill(id);
    await page.getByLabel('Task id to follow').press('Enter');
  }
  const rows = page.getByTestId('task-row');
  await expect(rows).toHaveCount(4);
  const order = await rows.evaluateAll((all) => all.map((r) => (r as HTMLElement).dataset.taskId));
  const row = (i: number) => page.locator(`[data-testid="task-row"][data-task-id="${order[i]}"]`);
  await rows.first().focus();
  await page.keyboard.press('ArrowDown');
  await expect(row(1)).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(row(2)).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(row(1)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('task-id')).toHaveText(order[1]!);
});
