import { isObject } from '../../mcp';
import { CHECK_MAX_LISTED, CHECK_MAX_PAGES } from './plan';
import { codeText, excerpt, skip, type Probe } from './probe';
import { count } from '../../rules/words';

/**
 * The active check's steps on the receiver's methods (issue #13): tasks/list paging, and the methods it does
 * not declare. Each returns the note shown beside the step.
 */

export async function listPaging(p: Probe): Promise<string> {
  if (p.target.era === '2026-07-28') skip('2026-07-28 has no tasks/list.');
  if (!p.target.support.list)
    skip('The receiver does not declare tasks/list (the last step checks that it refuses it).');
  const ids = new Set<string>();
  const cursors = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  let problem: string | undefined;
  let stoppedAt: string | undefined;
  while (pages < CHECK_MAX_PAGES) {
    const page = await p.attempt('tasks/list', cursor ? { cursor } : {});
    if (page.error && pages === 0) {
      p.broken(
        'capability-tasks-list',
        `tasks/list is declared, but the first page was refused: ${codeText(page.error)}.`,
        { detail: `tasks/list: ${codeText(page.error)}`, at: Date.now() },
      );
      return `refused: ${page.error.code}`;
    }
    if (page.error) {
      // The method answers; what it refused is the cursor it handed out itself: a paging fault.
      problem = `page ${pages + 1} was refused with the receiver's own nextCursor: ${codeText(page.error)}`;
      break;
    }
    const raw = page.answer;
    pages++;
    if (!isObject(raw) || !Array.isArray(raw.tasks)) {
      problem = `page ${pages} of tasks/list has no tasks array: ${excerpt(raw)}`;
      break;
    }
    for (const item of raw.tasks)
      if (isObject(item) && typeof item.taskId === 'string' && ids.size < CHECK_MAX_LISTED)
        ids.add(item.taskId);
    const next = raw.nextCursor;
    if (next === undefined || next === null || next === '') break;
    if (typeof next !== 'string') {
      problem = `page ${pages} has a nextCursor that is not a string: ${excerpt(next)}`;
      break;
    }
    if (cursors.has(next)) {
      problem = `page ${pages} handed out a cursor it had given before (${excerpt(next)})`;
      break;
    }
    cursors.add(next);
    cursor = next;
    if (ids.size >= CHECK_MAX_LISTED) {
      stoppedAt = `stopped at ${CHECK_MAX_LISTED} tasks`;
      break;
    }
  }
  if (pages >= CHECK_MAX_PAGES && !problem) stoppedAt = `stopped after ${CHECK_MAX_PAGES} pages`;
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
