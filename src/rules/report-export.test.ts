import { describe, expect, it } from 'vitest';
import type { ReportCard } from './report-types';
import { markdownCell, reportMarkdown } from './report-markdown';
import { reportFileName, reportJson } from './report-json';

const card: ReportCard = {
  receiver: { url: 'http://127.0.0.1:3001/mcp', era: '2025-11-25', name: 'demo', version: '1.0' },
  generatedAt: Date.UTC(2026, 11, 1, 8, 0, 0),
  rules: [
    {
      id: 'status-transitions',
      verdict: 'fail',
      observations: 12,
      reason: 'completed → working | twice\nthen [click](javascript:alert(1))',
      firstOffence: { taskId: 't|1', at: Date.UTC(2026, 11, 1, 7, 59, 0), detail: 'a\r\nb' },
      source: 'passive',
    },
    { id: 'pushes-sent', verdict: 'info', observations: 0, reason: 'No pushes seen.', source: 'passive' },
    {
      id: 'terminal-cancel-refused',
      verdict: 'pass',
      observations: 1,
      reason: 'tasks/cancel on a cancelled task was refused with -32602.',
      source: 'active',
    },
  ],
  counts: { fail: 1, warn: 0, info: 1, pass: 1, unobserved: 0 },
  active: {
    running: false,
    startedAt: Date.UTC(2026, 11, 1, 7, 58, 0),
    endedAt: Date.UTC(2026, 11, 1, 7, 58, 5),
    stopped: true,
    steps: [
      { id: 'unknown-id', title: 'tasks/get on an unknown task id', state: 'done', note: 'answered -32602' },
      { id: 'list-paging', title: 'tasks/list paging', state: 'stopped' },
    ],
    findings: [],
  },
};

/** The table's body rows: every line that starts a row after the header and its rule. */
const tableRows = (markdown: string) => {
  const lines = markdown.split('\n');
  const header = lines.findIndex((l) => l.startsWith('| Rule |'));
  return lines.slice(header + 2).filter((l) => l.startsWith('|'));
};

/** Cells split on pipes that are not escaped. */
const cells = (row: string) =>
  row
    .slice(2, -2)
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());

describe('Markdown export', () => {
  it('has the receiver, the date, the counts and one table row per rule', () => {
    const md = reportMarkdown(card);
    expect(md).toContain('## Taskscope report card: demo 1.0');
    expect(md).toContain('- Receiver: http://127.0.0.1:3001/mcp');
    expect(md).toContain('- Generated: 2026-12-01T08:00:00.000Z');
    expect(md).toContain('- Verdicts: 1 fail · 0 warn · 1 info · 1 pass · 0 unobserved');
    expect(md).toContain('- Active check: stopped, started 2026-12-01T07:58:00.000Z, 1 of 2 steps done');
    const rows = tableRows(md);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(cells(row)).toHaveLength(8);
    expect(cells(rows[0]!).slice(0, 4)).toEqual(['Only legal status transitions', 'fail', 'MUST', '12']);
    expect(cells(rows[2]!)[6]).toBe('active');
    expect(md).toContain('- tasks/list paging: stopped');
  });

  it('escapes pipes, line breaks and markup in reasons and offences so the table holds', () => {
    const row = tableRows(reportMarkdown(card))[0]!;
    expect(row).not.toContain('\n');
    const [, , , , reason, offence] = cells(row);
    expect(reason).toBe('completed → working \\| twice then \\[click\\](javascript:alert(1))');
    expect(offence).toBe('task t\\|1, 2026-12-01T07:59:00.000Z: a b');
    expect(markdownCell('<img src=x onerror=alert(1)>')).toBe('\\<img src=x onerror=alert(1)\\>');
    expect(markdownCell('x'.repeat(1000)).length).toBeLessThan(500);
  });

  it('links each rule to its text in the spec, http(s) only', () => {
    const row = tableRows(reportMarkdown(card))[0]!;
    expect(cells(row)[7]).toBe(
      '[2025-11-25](https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-status-lifecycle)',
    );
  });
});

describe('JSON export', () => {
  it('is the ReportCard itself, read back unchanged', () => {
    expect(JSON.parse(reportJson(card))).toEqual(card);
  });

  it('names files after the receiver host and the time', () => {
    expect(reportFileName(card, 'md')).toBe('taskscope-report-127.0.0.1_3001-2026-12-01T08-00-00-000Z.md');
    expect(reportFileName({ ...card, receiver: { url: '/demo/mcp' } }, 'json')).toBe(
      'taskscope-report-localhost-2026-12-01T08-00-00-000Z.json',
    );
  });
});
