import type { Page } from '@playwright/test';

/**
 * What the page's history database (IndexedDB, what a reload restores) holds, read from inside the page. The
 * recorder writes on a timer, so a test that reloads to see something restored first waits for it to be stored:
 * a person takes longer than that timer to reach for the reload button.
 */

/** The rows of the named object stores (all of them when none is named), as one string. */
export const storedHistory = (page: Page, stores: string[] = []) =>
  page.evaluate(
    (stores) =>
      new Promise<string>((resolve, reject) => {
        const open = indexedDB.open('taskscope-history');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const names = stores.length > 0 ? stores : [...db.objectStoreNames];
          const tx = db.transaction(names, 'readonly');
          const all: unknown[] = [];
          for (const name of names) {
            const request = tx.objectStore(name).getAll();
            request.onsuccess = () => all.push(request.result);
          }
          tx.oncomplete = () => {
            db.close();
            resolve(JSON.stringify(all));
          };
        };
      }),
    stores,
  );

/** The questions receivers asked the person, as stored (the inbox a reload restores). */
export const storedInbox = (page: Page) => storedHistory(page, ['inbox']);

/** The polls the page's history database holds for a task. */
export const storedPollCount = (page: Page, taskId: string) =>
  page.evaluate(
    (taskId) =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('taskscope-history');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const request = db.transaction('tasks', 'readonly').objectStore('tasks').getAll();
          request.onsuccess = () => {
            db.close();
            const rows = request.result as Array<{ taskId: string; record: { pollCount: number } }>;
            resolve(rows.find((row) => row.taskId === taskId)?.record.pollCount ?? 0);
          };
        };
      }),
    taskId,
  );
