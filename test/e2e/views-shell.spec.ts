import { expect, test, type Page } from '@playwright/test';
import { showsFocusRing } from '../helpers/focus-ring';
import { startEverything, type RunningReceiver } from '../helpers/receivers';
import { runTool, watchText } from '../helpers/task-page';

const CLOCK = /^\d{2}:\d{2}:\d{2}$/;
const CLOCK_MS = /^\d{2}:\d{2}:\d{2}\.\d{3}$/;

async function open(page: Page, path = '/') {
  await page.goto(path);
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await expect(page.getByTestId('tool-list')).toBeVisible();
}

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

test.describe('keyboard', () => {
  test('? opens the shortcuts overlay, a dialog closed by Escape or its button; typed in a field it is text', async ({
    page,
  }) => {
    await open(page);
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

    await page.getByTestId('tool-search').fill('');
    await page.getByTestId('tool-search').press('?');
    await expect(page.getByTestId('tool-search')).toHaveValue('?');
    await expect(overlay).toBeHidden();
  });

  test('/ focuses the task search, but is typed as text inside a field', async ({ page }) => {
    await open(page);
    await focusPage(page);
    await page.keyboard.press('/');
    await expect(page.getByLabel('Search tasks')).toBeFocused();
    await expect(page.getByLabel('Search tasks')).toHaveValue('');

    await page.getByTestId('tool-search').click();
    await page.keyboard.type('a/b');
    await expect(page.getByTestId('tool-search')).toHaveValue('a/b');
    await expect(page.getByTestId('tool-search')).toBeFocused();
  });

  test('Escape closes the innermost layer first: headers menu, saved receivers, the overlay, then the drawer', async ({
    page,
  }) => {
    await open(page);
    await page.getByRole('button', { name: /^Traffic/ }).click();
    await expect(drawer(page)).toHaveAttribute('data-open', 'true');

    await page.getByTestId('headers-button').click();
    await expect(page.getByTestId('headers-menu')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('headers-menu')).toBeHidden();
    await expect(drawer(page)).toHaveAttribute('data-open', 'true');
    // Focus goes back to the button that opened the menu, not to the page.
    await expect(page.getByTestId('headers-button')).toBeFocused();

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

    // Opened after the menu, the drawer still lies beneath it: the menu goes first.
    await page.getByTestId('headers-button').click();
    await expect(page.getByTestId('headers-menu')).toBeVisible();
    await page.keyboard.press('Shift+Tab');
    await expect(page.getByTestId('headers-button')).toBeFocused();
    await page.keyboard.press('t');
    await expect(drawer(page)).toHaveAttribute('data-open', 'true');
    await expect(page.getByTestId('headers-menu')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('headers-menu')).toBeHidden();
    await expect(drawer(page)).toHaveAttribute('data-open', 'true');
    await page.keyboard.press('Escape');
    await expect(drawer(page)).toHaveAttribute('data-open', 'false');
  });

  test('up and down move through the tool list and the task list; Enter opens', async ({ page }) => {
    await open(page);
    const tools = await page
      .getByTestId('tool-list')
      .getByRole('button')
      .evaluateAll((buttons) => buttons.map((b) => (b as HTMLElement).dataset.testid));
    expect(tools.length).toBeGreaterThan(3);

    await page.getByTestId('tool-search').focus();
    await page.keyboard.press('ArrowDown');
    expect(await focusedTestId(page)).toBe(tools[0]);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await focusedTestId(page)).toBe(tools[2]);
    await page.keyboard.press('ArrowUp');
    expect(await focusedTestId(page)).toBe(tools[1]);
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('run-form')).toBeVisible();
    await expect(page.getByTestId(tools[1]!)).toHaveAttribute('aria-current', 'true');

    // Three tasks, from ids the receiver does not know: rows without running anything.
    for (const id of ['kb-one', 'kb-two', 'kb-three']) {
      await page.getByLabel('Task id to follow').fill(id);
      await page.getByLabel('Task id to follow').press('Enter');
    }
    const rows = page.getByTestId('task-row');
    await expect(rows).toHaveCount(3);
    const order = await rows.evaluateAll((all) => all.map((r) => (r as HTMLElement).dataset.taskId));
    await rows.first().focus();
    await page.keyboard.press('ArrowDown');
    await expect(page.locator(`[data-testid="task-row"][data-task-id="${order[1]}"]`)).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(page.locator(`[data-testid="task-row"][data-task-id="${order[2]}"]`)).toBeFocused();
    await page.keyboard.press('ArrowUp');
    await expect(page.locator(`[data-testid="task-row"][data-task-id="${order[1]}"]`)).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('task-id')).toHaveText(order[1]!);
  });

  test('every control is reachable by Tab and shows a focus ring when it gets there', async ({ page }) => {
    await open(page);
    await runTool(page, 'rich_result_job', { durationMs: '200' });
    await expect(page.getByTestId('result')).toContainText('Quarterly report');
    await page.getByRole('button', { name: /^Traffic/ }).click();
    await expect(drawer(page).getByRole('row').first()).toBeVisible();

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

    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
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
  });
});

test.describe('tools and the receiver card', () => {
  let everything: RunningReceiver;
  test.beforeAll(async () => {
    everything = await startEverything();
  });
  test.afterAll(async () => {
    await everything.close();
  });

  test('server-everything: the tool search filters its 15 tools by name, title and description; its instructions read as markdown, folded', async ({
    page,
  }) => {
    await open(page, `/?server=${encodeURIComponent(everything.url)}`);
    const list = page.getByTestId('tool-list');
    await expect(list.getByRole('button')).toHaveCount(15);
    const search = page.getByTestId('tool-search');

    await search.fill('echo');
    await expect(list.getByRole('button')).toHaveCount(1);
    await expect(list.getByTestId('tool-echo')).toBeVisible();
    await expect(page.getByTestId('tool-search-count')).toHaveText('1 of 15 tools');
    // Only the title says "Print Environment Tool".
    await search.fill('print environment');
    await expect(list.getByRole('button')).toHaveCount(1);
    await expect(list.getByTestId('tool-get-env')).toBeVisible();
    // Only the description says "progress updates".
    await search.fill('PROGRESS updates');
    await expect(list.getByRole('button')).toHaveCount(1);
    await expect(list.getByTestId('tool-trigger-long-running-operation')).toBeVisible();
    await search.fill('no such tool anywhere');
    await expect(page.getByTestId('tool-list')).toHaveCount(0);
    await expect(page.getByText('No tool matches')).toBeVisible();
    // Escape empties the search before it closes anything.
    await search.press('Escape');
    await expect(search).toHaveValue('');
    await expect(list.getByRole('button')).toHaveCount(15);

    // The receiver card is one line once connected; its instructions are in the card, unfolded on demand.
    await page.getByTestId('receiver-toggle').click();
    const instructions = page.getByTestId('server-instructions');
    await expect(
      instructions.getByRole('heading', { name: 'Everything Server – Server Instructions' }),
    ).toBeAttached();
    await expect(instructions.getByRole('heading', { name: 'Cross-Feature Relationships' })).toBeAttached();
    await expect(instructions).not.toContainText('# Everything');
    await expect(instructions.locator('code').first()).toBeAttached();
    const folded = (await instructions.boundingBox())!.height;
    await instructions.getByRole('button', { name: 'Show all' }).click();
    await expect(instructions).toHaveAttribute('data-expanded', 'true');
    await expect(instructions.getByRole('heading', { name: 'Easter Egg' })).toBeVisible();
    expect((await instructions.boundingBox())!.height).toBeGreaterThan(folded * 2);
    await instructions.getByRole('button', { name: 'Show less' }).click();
    await expect(instructions).toHaveAttribute('data-expanded', 'false');
  });

  test('the demo receiver: short instructions are shown whole; the search finds a tool by its description', async ({
    page,
  }) => {
    await open(page);
    await page.getByTestId('receiver-toggle').click();
    const instructions = page.getByTestId('server-instructions');
    await expect(instructions).toBeVisible();
    await expect(instructions).toContainText('Demo receiver for Taskscope');
    await expect(instructions.getByRole('button')).toHaveCount(0);
    await page.getByTestId('tool-search').fill('elicitation');
    await expect(page.getByTestId('tool-list').getByRole('button')).toHaveCount(1);
    await expect(page.getByTestId('tool-ask_user')).toBeVisible();
  });

  test('server-everything sampling: the answered inbox item shows the reply sent, not only the outcome', async ({
    page,
  }) => {
    await open(page, `/?server=${encodeURIComponent(everything.url)}`);
    await page.getByTestId('tool-trigger-sampling-request').click();
    await page.locator('#arg-prompt').fill('What is six times seven?');
    await page.getByRole('button', { name: 'Call without task' }).click();
    const sampling = page.getByTestId('run-form').getByTestId('sampling-form');
    await sampling.getByLabel('Reply text').fill('forty-two, said slowly');
    await sampling.getByLabel('model').fill('a-person');
    await sampling.getByRole('button', { name: 'Reply' }).click();
    await expect(page.getByTestId('result')).toContainText('forty-two');

    await page.getByTestId('inbox-button').click();
    const answered = page
      .getByTestId('inbox-view')
      .locator('[data-testid="inbox-item"][data-state="answered"]');
    await expect(answered).toHaveCount(1);
    const sent = answered.getByTestId('inbox-sent');
    await expect(sent).toContainText('forty-two, said slowly');
    await expect(sent).toContainText('a-person');
    await expect(answered.getByTestId('inbox-received')).toHaveText(CLOCK);
  });
});

test('the demo ask_user: the answered inbox item lists the values accepted', async ({ page }) => {
  await open(page);
  await runTool(page, 'ask_user', { question: 'Which colour?' });
  const form = page.getByTestId('task-detail').getByTestId('elicitation-form');
  await form.getByLabel(/^Answer/).fill('teal, the darker one');
  await form.getByRole('button', { name: 'Accept' }).click();
  await expect(page.getByTestId('result')).toContainText('You answered: teal, the darker one');

  await page.getByTestId('inbox-button').click();
  const item = page.getByTestId('inbox-view').locator('[data-testid="inbox-item"][data-state="answered"]');
  const sent = item.getByTestId('inbox-sent');
  await expect(sent.locator('[data-field="answer"]')).toHaveText('teal, the darker one');
  await expect(sent.locator('[data-field="confident"]')).toHaveText('true');
  await expect(item.getByTestId('inbox-received')).toHaveText(CLOCK);
});

test.describe('results', () => {
  test('a result over 1 MB stays inside the pane: the long line wraps and its block scrolls by itself', async ({
    page,
  }) => {
    await open(page);
    await runTool(page, 'rich_result_job', { durationMs: '200', padKb: '1200' });
    const result = page.getByTestId('result');
    await expect(result).toContainText('the view is cut short');
    // Measured once the markdown has loaded in place of its plain-text stand-in.
    await expect(result.getByRole('heading', { name: 'Quarterly report' })).toBeVisible();
    await expect(result.getByTestId('long-text')).toContainText('Appendix');
    const main = await page
      .locator('main')
      .evaluate((m) => ({ scroll: m.scrollWidth, client: m.clientWidth }));
    expect(main.scroll).toBeLessThanOrEqual(main.client);
    const page_ = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(page_.scroll).toBeLessThanOrEqual(page_.client);
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
    const raw = await page
      .locator('main')
      .evaluate((m) => ({ scroll: m.scrollWidth, client: m.clientWidth }));
    expect(raw.scroll).toBeLessThanOrEqual(raw.client);
  });

  test('the demo image says its size, is drawn fitted rather than as a dot, and zooms on click', async ({
    page,
  }) => {
    await open(page);
    await runTool(page, 'rich_result_job', { durationMs: '200' });
    const image = page.getByTestId('result-image');
    await expect(page.getByTestId('image-size')).toContainText('5×5 px');
    await expect(page.getByTestId('image-size')).toContainText('85 B');
    const inline = (await image.boundingBox())!;
    expect(inline.width).toBeGreaterThanOrEqual(100);
    const paneWidth = await page.locator('main').evaluate((m) => m.clientWidth);
    expect(inline.width).toBeLessThanOrEqual(paneWidth);

    await image.click();
    const zoom = page.getByRole('dialog', { name: /Image, 5×5 px/ });
    await expect(zoom).toBeVisible();
    const zoomed = (await zoom.getByTestId('zoomed-image').boundingBox())!;
    expect(zoomed.width).toBeGreaterThan(inline.width * 2);
    await page.keyboard.press('Escape');
    await expect(zoom).toBeHidden();
    await expect(page.getByRole('button', { name: /Zoom the image/ })).toBeFocused();
  });

  test('copy says "Copied", and the clipboard holds the result', async ({ page, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await open(page);
    await runTool(page, 'rich_result_job', { durationMs: '200' });
    const copy = page.getByTestId('copy-result');
    await expect(copy).toHaveAttribute('data-copy-state', 'idle');
    // "Copied" is for a moment (1.5 s): what the button says is recorded, so a late look still sees it.
    const said = await watchText(page, '[data-testid="copy-result"]');
    await copy.click();
    await expect.poll(said).toContain('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('Quarterly report');
    // Then the button is itself again.
    await expect(copy).toHaveAttribute('data-copy-state', 'idle', { timeout: 5000 });
    await expect(copy).not.toContainText('Copied');
  });

  test('copy says when it failed, and why', async ({ page }) => {
    await page.addInitScript(() => {
      Object.defineProperty(navigator, 'clipboard', {
        configurable: true,
        value: { writeText: () => Promise.reject(new Error('Write permission denied.')) },
      });
    });
    await open(page);
    await runTool(page, 'rich_result_job', { durationMs: '200' });
    const copy = page.getByTestId('copy-result');
    await copy.click();
    await expect(copy).toHaveText('Copy failed');
    await expect(copy).toHaveAttribute('title', 'Copy failed: Write permission denied.');
  });
});

test.describe('the headers menu', () => {
  test('closes on Escape, on a press outside it and when the selection changes; its values stay', async ({
    page,
  }) => {
    await open(page);
    const button = page.getByTestId('headers-button');
    const menu = page.getByTestId('headers-menu');

    await button.click();
    await expect(menu).toBeVisible();
    await expect(page.locator('#headers')).toBeFocused();
    await page.locator('#headers').fill('X-Trace: on');
    await page.keyboard.press('Escape');
    await expect(menu).toBeHidden();

    await button.click();
    await expect(page.locator('#headers')).toHaveValue('X-Trace: on');
    // A press inside does not close it.
    await page.locator('#headers').click();
    await expect(menu).toBeVisible();
    await page.locator('main').click({ position: { x: 400, y: 400 } });
    await expect(menu).toBeHidden();

    await button.click();
    await expect(menu).toBeVisible();
    // A selection change with no press anywhere (as a keyboard or a script makes it).
    await page.getByTestId('tool-echo').evaluate((b) => (b as HTMLButtonElement).click());
    await expect(page.getByTestId('run-form')).toBeVisible();
    await expect(menu).toBeHidden();
  });

  test('never covers "Cancel task"', async ({ page }) => {
    await open(page);
    await runTool(page, 'slow_job', { durationMs: '60000', steps: '2', pollIntervalMs: '500' });
    const cancel = page.getByTestId('task-detail').getByRole('button', { name: 'Cancel task' });
    await expect(cancel).toBeVisible();
    await page.getByTestId('headers-button').click();
    const menu = page.getByTestId('headers-menu');
    await expect(menu).toBeVisible();
    // The detail's layout settles as the task's first answers arrive (progress, timeline): the check waits for
    // a settled layout in which the menu is clear of the button and the button is what is on top at its centre.
    // The detail grows as the timeline fills and can push the button below the fold (elementFromPoint is null
    // outside the viewport): it is brought into view first, as a person scrolls to it.
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
    await expect(page.getByTestId('task-row').first()).toContainText('cancelled');
  });
});

test('times read in one 24-hour format: the traffic drawer to the millisecond, the receiver card to the second', async ({
  page,
}) => {
  await open(page);
  await page.getByRole('button', { name: /^Traffic/ }).click();
  const times = drawer(page).getByTestId('traffic-time');
  await expect(times.first()).toBeVisible();
  for (const text of await times.allTextContents()) expect(text).toMatch(CLOCK_MS);

  await page.goto('/?server=http://127.0.0.1:9/mcp');
  await expect(page.getByTestId('connection-status')).toContainText('Unreachable');
  const since = page.getByRole('alert').getByText(/since/);
  await expect(since).toHaveText(/· since \d{2}:\d{2}:\d{2}$/);
  await expect(page.getByTestId('connection-status')).toHaveAttribute(
    'title',
    /\(since \d{2}:\d{2}:\d{2}\)$/,
  );
});

test('up/down move through the traffic log as through the other lists', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await page.getByRole('button', { name: /Traffic/ }).click();
  const times = page.getByRole('region', { name: 'Traffic' }).getByTestId('traffic-time');
  await expect(times.nth(2)).toBeVisible();
  await times.first().focus();
  await page.keyboard.press('ArrowDown');
  await expect(times.nth(1)).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(times.first()).toBeFocused();
});
