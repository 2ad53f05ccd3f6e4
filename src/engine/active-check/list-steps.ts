import { isObject } from '../../mcp';
import { CHECK_MAX_LISTED, CHECK_MAX_PAGES } from './plan';
import { codeText, excerpt, skip, type Attempt, type Probe } from './probe';
import { count } from '../../rules/words';

/**
 * The active check's steps on the receiver's methods: tasks/list paging, and the methods it does
 * not declare. Each returns the note shown beside the step.
 */

/** What following tasks/list page by page brought. */
export interface Listing {
  pages: number;
  /** Every task id listed (up to CHECK_MAX_LISTED). */
  ids: Set<string>;
  /** The listed items of the tasks asked for in `keep`, as the receiver gave them. */
  items: Map<string, unknown>;
  /** The first page's refusal: the method itself is refused. */
  refused?: Attempt['error'];
  /** What broke the paging after the first page. */
  problem?: string;
  /** Why the listing stopped short of its end (a cap). */
  stoppedAt?: string;
  /** When the first page was asked for (local clock). */
  sentAt: number;
}

/** tasks/list followed page by page, at most CHECK_MAX_PAGES pages and CHECK_MAX_LISTED tasks. */
export async function walkList(p: Probe, keep: ReadonlySet<string> = new Set()): Promise<Listing> {
  const listing: Listing = { pages: 0, ids: new Set(), items: new Map(), sentAt: Date.now() };
  const cursors = new Set<string>();
  let cursor: string | undefined;
  while (listing.pages < CHECK_MAX_PAGES) {
    const page = await p.attempt('tasks/list', cursor ? { cursor } : {});
    if (page.error && listing.pages === 0) {
      listing.refused = page.error;
      return listing;
    }
    if (page.error) {
      // The method answers; what it refused is the cursor it handed out itself: a paging fault.
      listing.problem = `page ${listing.pages + 1} was refused with the receiver's own nextCursor: ${codeText(page.error)}`;
      return listing;
    }
    const raw = page.answer;
    listing.pages++;
    if (!isObject(raw) || !Array.isArray(raw.tasks)) {
      listing.problem = `page ${listing.pages} of tasks/list has no tasks array: ${excerpt(raw)}`;
      return listing;
    }
    for (const item of raw.tasks) {
      if (!isObject(item) || typeof item.taskId !== 'string') continue;
      if (listing.ids.size < CHECK_MAX_LISTED) listing.ids.add(item.taskId);
      if (keep.has(item.taskId)) listing.items.set(item.taskId, item);
    }
    const next = raw.nextCursor;
    if (next === undefined || next === null || next === '') return listing;
    if (typeof next !== 'string') {
      listing.problem = `page ${listing.pages} has a nextCursor that is not a string: ${excerpt(next)}`;
      return listing;
    }
    if (cursors.has(next)) {
      listing.problem = `page ${listing.pages} handed out a cursor it had given before (${excerpt(next)})`;
      return listing;
    }
    cursors.add(next);
    cursor = next;
    if (listing.ids.size >= CHECK_MAX_LISTED) {
      listing.stoppedAt = `stopped at ${CHECK_MAX_LISTED} tasks`;
      return listing;
    }
  }
  listing.stoppedAt = `stopped after ${CHECK_MAX_PAGES} pages`;
  return listing;
}

export async function listPaging(p: Probe): Promise<string> {
  if (p.target.era === '2026-07-28') skip('2026-07-28 has no tasks/list.');
  if (!p.target.support.list)
    p.notJudged(
      'list-paging',
      'The receiver does not declare tasks/list (the last step checks that it refuses it).',
    );
  const { pages, ids, refused, problem, stoppedAt } = await walkList(p);
  if (refused) {
    p.broken(
      'capability-tasks-list',
      `tasks/list is declared, but the first page was refused: ${codeText(refused)}.`,
      { detail: `tasks/list: ${codeText(refused)}`, at: Date.now() },
    );
    return `refused: ${refused.code}`;
  }
  // A task tasks/get still knows must be listed too.
  const missing: string[] = [];
  if (!stoppedAt)
    for (const subject of p.started)
      if (!ids.has(subject.taskId) && !subject.gone && (await p.read(subject))) missing.push(subject.taskId);
  const invalid = await p.attempt('tasks/list', { cursor: `taskscope-check-not-a-cursor-${pages}` });
  const detail = `${pages} page${pages === 1 ? '' : 's'}, ${ids.size} tasks${stoppedAt ? `, ${stoppedAt}` : ''}`;
  if (problem) {
    p.broken('list-paging', `tasks/list: ${problem}.`, { detail: problem, at: Date.now() });
  } else if (missing.length > 0) {
    p.broken(
      'list-paging',
      `tasks/list (${detail}) leaves out ${count(missing.length, 'task')} that tasks/get knows.`,
      { taskId: missing[0], at: Date.now(), detail: `not listed: ${missing[0]}` },
    );
  } else if (invalid.error?.code !== -32602) {
    const said = invalid.error ? codeText(invalid.error) : `a page (${excerpt(invalid.answer)})`;
    p.broken('list-paging', `tasks/list with a cursor it never issued answered ${said}; expected -32602.`, {
      detail: `invalid cursor: ${said}`,
      at: Date.now(),
    });
  } else {
    p.find(
      'list-paging',
      'pass',
      `tasks/list followed: ${detail}${pages > 1 ? ', every cursor new' : ' (one page: paging not needed)'}; an unknown cursor gets -32602.`,
    );
  }
  p.find('capability-tasks-list', 'pass', 'The receiver declares tasks/list, and it answers.');
  return detail;
}

export async function capabilityAbsent(p: Probe): Promise<string> {
  // The rule is 2025-11-25's alone: a finding on 2026-07-28 would have no spec link and be dropped unseen.
  if (p.target.era === '2026-07-28')
    skip('tasks/list does not exist in 2026-07-28 and no rule there says how it is refused: not asked.');
  const methods: Array<'tasks/list' | 'tasks/cancel'> = [];
  if (!p.target.support.list) methods.push('tasks/list');
  if (!p.target.support.cancel) methods.push('tasks/cancel');
  if (methods.length === 0)
    skip('The receiver declares both tasks/list and tasks/cancel: nothing absent to ask for.');
  const notes: string[] = [];
  for (const method of methods) {
    const params =
      method === 'tasks/cancel' ? { taskId: `taskscope-check-unknown-${crypto.randomUUID()}` } : {};
    const { answer, error } = await p.attempt(method, params);
    if (error?.code === -32601) {
      p.find(
        'undeclared-method-refused',
        'pass',
        `${method}, which it does not declare, is refused with -32601.`,
      );
      notes.push(`${method}: -32601`);
      continue;
    }
    const said = error ? `answered ${codeText(error)}` : `answered ${excerpt(answer)}`;
    p.broken(
      'undeclared-method-refused',
      `${method}, which it does not declare, ${said}; -32601 would say so plainly.`,
      {
        detail: `${method}: ${said}`,
        at: Date.now(),
      },
    );
    notes.push(`${method}: ${error?.code ?? 'answered'}`);
  }
  return notes.join('; ');
}
