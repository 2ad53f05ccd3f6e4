import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Playback } from './playback';
import type { Plan, Step } from './recording';

const step = (offsetMs: number, status: Step['status'], extra: Partial<Step> = {}): Step => ({
  offsetMs,
  at: 1_000_000 + offsetMs,
  status,
  questions: [],
  ...extra,
});

const plan = (steps: Step[]): Plan => ({
  tool: 'job',
  recordedTaskId: 'recorded',
  steps,
  ttl: 60_000,
  pollInterval: 1000,
});

describe('Playback', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('moves through the recorded statuses at the recorded offsets divided by speed', () => {
    const playback = new Playback({ speed: 2 });
    const task = playback.start(
      plan([step(0, 'working'), step(1000, 'working', { statusMessage: 'half' }), step(3000, 'completed')]),
    );
    expect(playback.current(task)).toMatchObject({ status: 'working', pollInterval: 500 });
    vi.advanceTimersByTime(499);
    expect(playback.current(task).statusMessage).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(playback.current(task).statusMessage).toBe('half');
    vi.advanceTimersByTime(999);
    expect(playback.ended(task)).toBe(false);
    vi.advanceTimersByTime(1);
    expect(playback.current(task).status).toBe('completed');
    playback.close();
  });

  it('waits at a step with a question until it is answered, then keeps the recorded gap from the answer', () => {
    const playback = new Playback({ speed: 1 });
    const question = { key: 'q', method: 'elicitation/create', params: {}, answeredAt: 1_000_000 + 2000 };
    const task = playback.start(
      plan([
        step(0, 'working'),
        step(500, 'input_required', { questions: [question] }),
        step(2500, 'working'),
        step(3000, 'completed'),
      ]),
    );
    const asked: string[] = [];
    playback.subscribe((e) => {
      if (e.type === 'asked') asked.push(e.question.key);
    });
    vi.advanceTimersByTime(500);
    expect(playback.current(task).status).toBe('input_required');
    expect(asked).toEqual(['q']);
    vi.advanceTimersByTime(60_000);
    expect(playback.current(task).status).toBe('input_required');
    expect(playback.answer(task, 'other')).toBe(false);
    expect(playback.answer(task, 'q')).toBe(true);
    vi.advanceTimersByTime(499);
    expect(playback.current(task).status).toBe('input_required');
    vi.advanceTimersByTime(1);
    expect(playback.current(task).status).toBe('working');
    vi.advanceTimersByTime(500);
    expect(playback.current(task).status).toBe('completed');
    playback.close();
  });

  it('with step, moves only when asked; a cancel ends the task and its timer', async () => {
    const playback = new Playback({ speed: 1, step: true });
    const task = playback.start(
      plan([step(0, 'working'), step(10, 'working', { statusMessage: 'two' }), step(20, 'completed')]),
    );
    vi.advanceTimersByTime(60_000);
    expect(playback.current(task).statusMessage).toBeUndefined();
    expect(playback.step()).toBe(1);
    expect(playback.current(task).statusMessage).toBe('two');
    const ended = playback.whenEnded(task);
    expect(playback.cancel(task)).toBe(true);
    await expect(ended).resolves.toBe(true);
    expect(playback.current(task).status).toBe('cancelled');
    expect(playback.cancel(task)).toBe(false);
    expect(playback.step()).toBe(0);
    playback.close();
  });

  it('keeps at most maxTasks: an ended one goes first, else the oldest', async () => {
    const playback = new Playback({ speed: 1, maxTasks: 2 });
    const long = plan([step(0, 'working'), step(60_000, 'completed')]);
    const short = plan([step(0, 'working'), step(10, 'completed')]);
    const first = playback.start(long);
    const done = playback.start(short);
    vi.advanceTimersByTime(10);
    expect(playback.ended(done)).toBe(true);
    const third = playback.start(long);
    expect(playback.get(done.taskId)).toBeUndefined();
    const waiting = playback.whenEnded(first);
    playback.start(long);
    expect(playback.get(first.taskId)).toBeUndefined();
    await expect(waiting).resolves.toBe(false);
    expect(playback.get(third.taskId)).toBe(third);
    expect(vi.getTimerCount()).toBe(2);
    playback.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('chains a recorded gap longer than a timer holds', () => {
    const playback = new Playback({ speed: 0.001 });
    const task = playback.start(plan([step(0, 'working'), step(3_000_000, 'completed')]));
    vi.advanceTimersByTime(2 ** 31);
    expect(playback.ended(task)).toBe(false);
    vi.advanceTimersByTime(3_000_000_000 - 2 ** 31);
    expect(playback.ended(task)).toBe(true);
    playback.close();
  });
});
