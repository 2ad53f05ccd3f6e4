import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { demoFor, stopAfterEach } from '../helpers/cleanups';
import { startSdk24Receiver } from '../helpers/sdk24-receiver';
import { SOURCE_CLI, runCli } from '../helpers/taskscope-cli';
import { repoRoot } from '../helpers/stdio';
import { runInProcess } from '../helpers/run-command';
import { waitFor } from '../helpers/wait';

/** `taskscope watch` against real receivers started here; the poll discipline counted on the receiver's side. */
const later = stopAfterEach();
const demo = () => demoFor(later);

interface Event {
  event: string;
  exitCode?: number;
  polls?: number;
  status?: string;
  taskId?: string;
  result?: { result: { content: Array<{ text: string }> } };
}
const events = (stdout: string): Event[] =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Event);

describe('taskscope watch', () => {
  it('runs a task to its result (exit 0), printing the timeline as it changes', async () => {
    const receiver = await demo();
    const run = await runInProcess([
      'watch',
      receiver.url,
      '--tool',
      'slow_job',
      '--args',
      '{"durationMs": 600, "steps": 2, "pollIntervalMs": 200, "label": "cli"}',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^slow_job started task \S+$/m);
    expect(run.stdout).toMatch(/ {2}working: Step 1\/2: cli {2}\(create\)$/m);
    expect(run.stdout).toMatch(/ {2}completed: .*$/m);
    expect(run.stdout).toMatch(/^result:\nFinished cli: 2 steps in 600 ms\.$/m);
  });

  it('ends with exit 1 for a failed task, and says so in --json event lines', async () => {
    const receiver = await demo();
    const run = await runInProcess([
      'watch',
      receiver.url,
      '--tool',
      'flaky_job',
      '--args',
      '{"failAfterMs": 300, "reason": "disk full"}',
      '--json',
    ]);
    expect(run.code).toBe(1);
    const lines = events(run.stdout);
    expect(lines[0]).toMatchObject({ event: 'task' });
    expect(lines.some((e) => e.event === 'status' && e.status === 'failed')).toBe(true);
    expect(lines.find((e) => e.event === 'result')?.result?.result.content[0]?.text).toMatch(/disk full/);
    expect(lines.at(-1)).toMatchObject({ event: 'end', exitCode: 1, status: 'failed' });
  });

  it('refuses a question with no terminal to ask on (exit 6), declining it on the receiver', async () => {
    const receiver = await demo();
    // A child process with no stdin: what a CI job is.
    const run = await runCli(['watch', receiver.url, '--tool', 'ask_user']);
    expect(run.code).toBe(6);
    expect(run.stderr).toMatch(/asks a person \(elicitation\/create\) and there is no terminal to ask on/);
    expect(run.stdout).toMatch(/input elicitation\/create answered \(declined \(no terminal\)\)/);
  });

  it('asks the question on a terminal (a pseudo-terminal from script(1)) and sends the answer', async () => {
    const receiver = await demo();
    const command = [...SOURCE_CLI, 'watch', receiver.url, '--tool', 'ask_user']
      .map((a) => `'${a}'`)
      .join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: repoRoot,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    // Each answer is typed once its prompt is on the screen, as a person would.
    const answers: Array<[RegExp, string]> = [
      [/\[c\]ancel: $/, 'y\n'],
      [/Answer: $/, 'teal\n'],
      [/Sure about it\? \(y \/ n\) \[true\]: $/, '\n'],
    ];
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const next = answers[0];
      // eslint-disable-next-line no-control-regex -- the terminal's cursor moves are what is being removed
      if (next && next[0].test(output.replace(/\x1b\[[0-9;]*[A-Za-z]/g, ''))) {
        answers.shift();
        child.stdin.write(next[1]);
      }
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdin.end();
    expect(answers).toEqual([]);
    expect(output).toContain('The receiver asks: Which colour should the report use?');
    expect(output).toMatch(/input elicitation\/create answered \(accepted\)/);
    expect(output).toContain('You answered: teal');
    expect(code).toBe(0);
  });

  it('takes only y, yes, n, no or c at a yes/no prompt (anything else is asked again); each field reads its own line', async () => {
    const receiver = await demo();
    // One line typed at each prompt, in turn: a value typed at "Answer?" by mistake, then the right answers.
    const typed = ['teal\n', 'y\n', 'teal\n', 'maybe\n', 'n\n'];
    let answeredUpTo = 0;
    const run = await runInProcess(
      ['watch', receiver.url, '--tool', 'ask_user'],
      {},
      {
        onScreen: (screen, type) => {
          // A prompt is what ends the screen with ": "; each is answered once.
          if (!screen.endsWith(': ') || screen.length <= answeredUpTo) return;
          answeredUpTo = screen.length;
          const next = typed.shift();
          if (next) type(next);
        },
      },
    );
    expect(typed).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.screen).toMatch(
      /\[c\]ancel: teal\r?\n {2}Please answer y \(yes\), n \(no: decline\) or c \(cancel\)\.\nAnswer\? \[Y\]es/,
    );
    expect(run.screen).toMatch(/\(y \/ n\) \[true\]: maybe\r?\n {2}Please answer y \(yes\) or n \(no\)\./);
    expect(run.stdout).toMatch(/input elicitation\/create answered \(accepted\)/);
    expect(run.stdout).toMatch(/^You answered: teal$/m);
  });

  it('shows input_required on its status line while a question waits, with the polls made meanwhile', async () => {
    const receiver = await demo();
    const answers = ['teal\n', '\n'];
    let asked = false;
    const run = await runInProcess(
      ['watch', receiver.url, '--tool', 'ask_user'],
      {},
      {
        onScreen: (screen, type) => {
          if (!asked && screen.endsWith('[c]ancel: ')) {
            asked = true;
            // Answered once the receiver has been polled while the question waited (its pollInterval is 1 s).
            const before = receiver.arrivals.POST ?? 0;
            void waitFor(() => (receiver.arrivals.POST ?? 0) >= before + 2, 10_000).then(() => type('y\n'));
          } else if (asked && /(Answer|\[true\]): $/.test(screen)) {
            const next = answers.shift();
            if (next) type(next);
          }
        },
      },
    );
    expect(run.code).toBe(0);
    // Each status line drawn, in order, with where it starts on the screen.
    // eslint-disable-next-line no-control-regex -- the status line is drawn after "erase the line"
    const drawn = [...run.screen.matchAll(/\r\x1b\[K(\S+ · [a-z_]+ · [^\r\n]*)/g)].map((m) => ({
      at: m.index,
      line: m[1]!,
    }));
    const inputRequired = run.screen.search(/ {2}input_required: Waiting for an answer/);
    const question = run.screen.indexOf('The receiver asks:');
    const answered = run.screen.indexOf('answered (accepted)');
    expect(inputRequired).toBeGreaterThan(0);
    expect(question).toBeGreaterThan(inputRequired);
    const whileWaiting = drawn.filter((d) => d.at > inputRequired && d.at < question);
    expect(whileWaiting.length).toBeGreaterThan(0);
    for (const { line } of whileWaiting) expect(line).toMatch(/^\S+ · input_required · /);
    const afterAnswer = drawn.find((d) => d.at > answered)?.line;
    expect(Number(/· (\d+) polls? ·/.exec(afterAnswer ?? '')?.[1])).toBeGreaterThanOrEqual(1);
  });

  it('stops following at --timeout (exit 7), the task still running', async () => {
    const receiver = await demo();
    const run = await runInProcess([
      'watch',
      receiver.url,
      '--tool',
      'slow_job',
      '--args',
      '{"durationMs": 60000, "steps": 2}',
      '--timeout',
      '0.5',
    ]);
    expect(run.code).toBe(7);
    expect(run.stderr).toMatch(/--timeout reached \(0\.5 s\): the task still runs/);
  });

  it('polls no sooner than the pollInterval, as counted by the receiver (2026-07-28, server 2.4)', async () => {
    const receiver = await startSdk24Receiver({ mode: 'strict' });
    later(receiver.close);
    const interval = 150;
    const run = await runInProcess([
      'watch',
      receiver.url,
      '--tool',
      'sleep_task',
      '--args',
      JSON.stringify({ ms: 60_000, pollIntervalMs: interval, workingPolls: 4 }),
      '--json',
    ]);
    expect(run.code).toBe(0);
    const lines = events(run.stdout);
    const taskId = lines[0]?.taskId;
    const gets = receiver.arrivals.filter((a) => a.method === 'tasks/get' && a.taskId === taskId);
    // Working for four polls, completed at the fifth: not one poll more, and the command counted the same.
    expect(receiver.served(taskId!)).toEqual(['working', 'working', 'working', 'working', 'completed']);
    expect(gets.length).toBe(5);
    expect(lines.at(-1)).toMatchObject({ event: 'end', exitCode: 0, polls: 5 });
    for (let i = 1; i < gets.length; i++)
      expect(gets[i]!.at - gets[i - 1]!.at).toBeGreaterThanOrEqual(interval);
  });

  it('refuses mistakes with exit 2', async () => {
    const receiver = await demo();
    for (const argv of [
      ['watch', receiver.url],
      ['watch', receiver.url, '--tool', 'a', '--task', 'b'],
      ['watch', receiver.url, '--task', 'b', '--args', '{}'],
      ['watch', receiver.url, '--tool', 'no_such_tool'],
    ]) {
      const run = await runInProcess(argv);
      expect(run.code, argv.join(' ')).toBe(2);
    }
  });
});
