import { expect, type Locator, type Page } from '@playwright/test';

/** What the e2e specs do with tasks in the page, written once for all of them. */

/** Opens a tool's form, fills its arguments (and the task ttl, when given), runs it as a task; the task's id. */
export async function runTool(
  page: Page,
  tool: string,
  args: Record<string, string> = {},
  options: { ttl?: string } = {},
): Promise<string> {
  await page.getByTestId(`tool-${tool}`).click();
  const form = page.getByTestId('run-form');
  for (const [name, value] of Object.entries(args)) await form.locator(`#arg-${name}`).fill(value);
  if (options.ttl !== undefined) await form.locator('#task-ttl').fill(options.ttl);
  await form.getByRole('button', { name: 'Run as task' }).click();
  const detail = page.getByTestId('task-detail');
  await expect(detail).toBeVisible();
  return (await detail.getByTestId('task-id').textContent()) ?? '';
}

/** A task's row in the task list. */
export const taskRow = (page: Page, taskId: string): Locator =>
  page.locator(`[data-testid="task-row"][data-task-id="${taskId}"]`);

/**
 * Ends a task the test gave a life longer than the test itself: opens it (unless the detail shows it already),
 * cancels it, and waits until the detail says so. Such a task is live for as long as the test needs it, with
 * no race against its own end.
 */
export async function cancelTask(page: Page, taskId: string): Promise<void> {
  const detail = page.getByTestId('task-detail');
  const shown = detail.getByTestId('task-id');
  if ((await shown.count()) === 0 || (await shown.textContent()) !== taskId)
    await taskRow(page, taskId).click();
  await expect(shown).toHaveText(taskId);
  await detail.getByRole('button', { name: 'Cancel task' }).click();
  await expect(detail.getByTestId('status-headline')).toContainText('Cancelled');
}

/** Polls sent for the task the detail shows, as the detail counts them. */
export const pollCount = async (page: Page): Promise<number> =>
  Number((await page.getByTestId('task-detail').getByTestId('poll-count').textContent()) ?? 0);

/**
 * Records every value an attribute takes from now on (a MutationObserver in the page), so a state that lasts a
 * moment (a button's "Copied") is seen however late the test looks: read the values with the function returned.
 */
export async function watchAttribute(locator: Locator, name: string): Promise<() => Promise<string[]>> {
  const key = `__watched_${name.replace(/\W/g, '_')}_${Math.random().toString(36).slice(2)}`;
  await locator.evaluate(
    (element, { key, name }) => {
      const seen: string[] = [element.getAttribute(name) ?? ''];
      (window as unknown as Record<string, string[]>)[key] = seen;
      new MutationObserver(() => seen.push(element.getAttribute(name) ?? '')).observe(element, {
        attributes: true,
        attributeFilter: [name],
      });
    },
    { key, name },
  );
  return () =>
    locator.page().evaluate((key) => (window as unknown as Record<string, string[]>)[key] ?? [], key);
}

/**
 * Records every text the element matching `selector` shows from now on, including when it first appears (a
 * MutationObserver on the whole page), so a state that lasts a moment is seen however late the test looks.
 */
export async function watchText(page: Page, selector: string): Promise<() => Promise<string[]>> {
  const key = `__texts_${Math.random().toString(36).slice(2)}`;
  await page.evaluate(
    ({ key, selector }) => {
      const seen: string[] = [];
      (window as unknown as Record<string, string[]>)[key] = seen;
      const look = () => {
        const text = document.querySelector(selector)?.textContent ?? null;
        if (text !== null && text !== seen.at(-1)) seen.push(text);
      };
      look();
      new MutationObserver(look).observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true,
      });
    },
    { key, selector },
  );
  return () => page.evaluate((key) => (window as unknown as Record<string, string[]>)[key] ?? [], key);
}
