import {
  classifyError,
  isTerminal,
  normaliseTask,
  type ClassifiedError,
  type Era,
  type Normalised,
  type ServerTaskSupport,
  type TaskSnapshot,
  type ToolInfo,
} from '../mcp';
import type {
  ActiveCheckState,
  ActiveCheckStep,
  Offence,
  RuleId,
  RuleResult,
  Verdict,
} from '../tasks/core/report/report-types';
import { appliesTo, ruleDef, strengthFor } from '../tasks/core/report/rules';
import {
  CHECK_MAX_LISTED,
  CHECK_MAX_PAGES,
  CHECK_STEPS,
  checkableTools,
  isRecord,
  type CheckStepId,
  type CheckableTool,
} from './active-check-plan';

export { CHECK_STEPS, checkableTools, type CheckableTool } from './active-check-plan';

/**
 * The report card's active check (issue #13): probes a receiver for what watching alone cannot show — an
 * unknown id, a cancel of a live and of an ended task, tasks/result before the end, a short requested ttl,
 * tasks/list paging, methods it does not declare. It runs in the engine, on the person's request only (it
 * creates tasks on their server), with only tools the receiver offers. Every request has a deadline; every
 * wait is bounded; Stop aborts what is in flight and cancels the tasks it started.
 */

/** What the check needs of a connection: its session's raw requests, the tools, and the tracker to hand tasks to. */
export interface CheckTarget {
  era: Era;
  support: ServerTaskSupport;
  request(
    method: string,
    params: Record<string, unknown>,
    options: { timeoutMs: number; signal: AbortSignal },
  ): Promise<unknown>;
  listTools(): Promise<ToolInfo[]>;
  /** A task the check created, so the person sees it with every other (and the passive rules judge it too). */
  created?(taskId: string, created: Normalised<TaskSnapshot | null>, call: CheckCall, sentAt: number): void;
}

export interface CheckCall {
  tool: string;
  args: Record<string, unknown>;
  ttl?: number;
}

export interface CheckOptions {
  /** The tool the person picked; otherwise the first one the check can fill. */
  tool?: string;
  onProgress?: (state: ActiveCheckState) => void;
  /** Tests shorten the waits; the defaults are what a person gets. */
  timing?: Partial<typeof TIMING>;
}

const TIMING = {
  /** tasks/get and the other short requests. */
  requestMs: 10_000,
  /** How long tasks/result on a running task is held before the check takes "it blocks" as the answer. */
  blockProbeMs: 2_000,
  /** The ttl the check asks for; short enough to see expire, long enough for the create answer to arrive. */
  shortTtlMs: 1_500,
  /** Expiries further away than this are not waited for (server-everything forces 300 s). */
  maxExpiryWaitMs: 10_000,
  /** After the ttl, how long before asking whether the task is gone. */
  expiryGraceMs: 1_000,
  /** 2026-07-28: how long a cancelled task is watched for reading cancelled. */
  cancelSettleMs: 3_000,
};

class Stopped extends Error {
  override readonly name = 'Stopped';
}

/** A step's own way of saying it could not run, with the reason shown to the person. */
class Skip extends Error {
  override readonly name = 'Skip';
}

const excerpt = (value: unknown) => {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
};

const codeText = (error: ClassifiedError) =>
  error.code !== undefined ? `${error.code} (${error.message})` : error.message;

const seconds = (ms: number) => `${(ms / 1000).toLocaleString('en', { maximumFractionDigits: 1 })} s`;

/** A task the check started, and what it last read of it. */
interface Subject {
  taskId: string;
  snapshot?: TaskSnapshot;
  /** Gone: purged or refused, nothing left to cancel. */
  gone?: boolean;
  /** When the create request went out (local clock): the ttl counts from about then. */
  sentAt: number;
}

/** A task gone this long before its ttl was purged early, not at the edge of a clock difference. */
const EARLY_PURGE_MARGIN_MS = 1_000;

export class ActiveCheck {
  private readonly controller = new AbortController();
  private readonly timing: typeof TIMING;
  private state: ActiveCheckState;
  private readonly started: Subject[] = [];
  private subject: Subject | undefined;
  private subjectError: string | undefined;
  private chosen: CheckableTool | undefined | null;

  constructor(
    private readonly target: CheckTarget,
    private readonly options: CheckOptions = {},
  ) {
    this.timing = { ...TIMING, ...options.timing };
    this.state = {
      running: false,
      steps: CHECK_STEPS.map(({ id, title }) => ({ id, title, state: 'pending' })),
      findings: [],
    };
  }

  get snapshot(): ActiveCheckState {
    return structuredClone(this.state);
  }

  get stopped(): boolean {
    return this.controller.signal.aborted;
  }

  /** Stops what runs now; the tasks it started are cancelled where the receiver allows it. */
  stop(): void {
    this.controller.abort();
  }

  async run(): Promise<ActiveCheckState> {
    this.state = { ...this.state, running: true, startedAt: Date.now() };
    this.emit();
    const era = this.target.era;
    await this.step('unknown-id', () => this.unknownId());
    await this.step('result-before-terminal', () => this.resultBeforeTerminal());
    await this.step('cancel-live', () => this.cancelLive());
    await this.step('cancel-terminal', () => this.cancelTerminal());
    await this.step('short-ttl', () =>
      era === '2026-07-28'
        ? this.skip('2026-07-28 has no ttl to ask for: the receiver decides each task’s lifetime.')
        : this.shortTtl(),
    );
    await this.step('list-paging', () => this.listPaging());
    await this.step('capability-absent', () => this.capabilityAbsent());
    await this.cleanUp();
    this.state = {
      ...this.state,
      running: false,
      endedAt: Date.now(),
      stopped: this.stopped || undefined,
    };
    this.emit();
    return this.snapshot;
  }

  private emit(): void {
    this.options.onProgress?.(this.snapshot);
  }

  private setStep(id: CheckStepId, patch: Partial<ActiveCheckStep>): void {
    this.state = {
      ...this.state,
      steps: this.state.steps.map((s) => (s.id === id ? { ...s, ...patch } : s)),
    };
    this.emit();
  }

  private async step(id: CheckStepId, body: () => Promise<string>): Promise<void> {
    if (this.stopped) {
      this.setStep(id, { state: 'stopped' });
      return;
    }
    this.setStep(id, { state: 'running' });
    try {
      const note = await body();
      this.setStep(id, { state: 'done', note });
    } catch (error) {
      if (this.stopped) this.setStep(id, { state: 'stopped', note: 'Stopped by the person.' });
      else if (error instanceof Skip) this.setStep(id, { state: 'skipped', note: error.message });
      else
        this.setStep(id, {
          state: 'error',
          note: error instanceof Error ? error.message : String(error),
        });
    }
  }

  private skip(reason: string): never {
    throw new Skip(reason);
  }

  private find(id: RuleId, verdict: Verdict, reason: string, firstOffence?: Offence): void {
    // A rule the receiver's generation does not have is not graded (the step's note still says what was seen).
    if (!appliesTo(ruleDef(id), this.target.era)) return;
    const result: RuleResult = { id, verdict, observations: 1, reason, source: 'active' };
    if (firstOffence && verdict !== 'pass') result.firstOffence = firstOffence;
    // One finding per rule: a later probe of the same rule adds its observation; the worse verdict stays.
    const findings = [...this.state.findings];
    const at = findings.findIndex((f) => f.id === id);
    const before = findings[at];
    if (!before) findings.push(result);
    else {
      const worse = VERDICT_RANK[verdict] > VERDICT_RANK[before.verdict] ? result : before;
      findings[at] = { ...worse, observations: before.observations + 1 };
    }
    this.state = { ...this.state, findings };
  }

  /** A rule broken: a MUST fails, a SHOULD warns, a MAY informs. */
  private broken(id: RuleId, reason: string, offence?: Offence): void {
    const strength = strengthFor(ruleDef(id), this.target.era);
    this.find(id, strength === 'MUST' ? 'fail' : strength === 'SHOULD' ? 'warn' : 'info', reason, offence);
  }

  /** One request with the check's deadline and its stop signal. */
  private async ask(
    method: string,
    params: Record<string, unknown>,
    timeoutMs = this.timing.requestMs,
  ): Promise<unknown> {
    if (this.stopped) throw new Stopped();
    // A signal per request: the transport leaves its listener on the signal it is given.
    const request = new AbortController();
    const onStop = () => request.abort();
    this.controller.signal.addEventListener('abort', onStop, { once: true });
    try {
      return await this.target.request(method, params, { timeoutMs, signal: request.signal });
    } catch (error) {
      if (this.stopped) throw new Stopped();
      throw error;
    } finally {
      this.controller.signal.removeEventListener('abort', onStop);
    }
  }

  /** The request's JSON-RPC error, or the answer; a missing answer (network, deadline) is thrown on. */
  private async attempt(
    method: string,
    params: Record<string, unknown>,
  ): Promise<{ answer: unknown; error?: undefined } | { error: ClassifiedError; answer?: undefined }> {
    try {
      return { answer: await this.ask(method, params) };
    } catch (error) {
      if (error instanceof Stopped) throw error;
      const classified = classifyError(error, { method });
      if (classified.code === undefined)
        throw new Error(`${method}: ${classified.message}`, { cause: error });
      return { error: classified };
    }
  }

  private sleep(ms: number): Promise<void> {
    const signal = this.controller.signal;
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new Stopped());
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(new Stopped());
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private async unknownId(): Promise<string> {
    const taskId = `taskscope-check-unknown-${crypto.randomUUID()}`;
    const { answer, error } = await this.attempt('tasks/get', { taskId });
    if (error?.code === -32602) {
      this.find('unknown-task-error', 'pass', 'tasks/get on an id never issued answered -32602.');
      return 'answered -32602';
    }
    const said = error ? `answered ${codeText(error)}` : `answered with a result: ${excerpt(answer)}`;
    this.broken('unknown-task-error', `tasks/get on an id never issued ${said}; the spec asks for -32602.`, {
      detail: `tasks/get ${taskId}: ${said}`,
      at: Date.now(),
    });
    return said;
  }

  /** The tool the check runs, chosen once: the person's pick, else the first it can fill. */
  private async tool(): Promise<CheckableTool> {
    if (this.chosen === undefined) {
      if (!this.target.support.toolCall) this.chosen = null;
      else {
        const candidates = checkableTools(await this.target.listTools());
        this.chosen =
          candidates.find((c) => c.tool.name === this.options.tool) ??
          (this.options.tool === undefined ? candidates[0] : undefined) ??
          null;
      }
    }
    if (this.chosen) return this.chosen;
    if (!this.target.support.toolCall)
      this.skip('The receiver declares no task-augmented tools/call: the check starts no tasks.');
    this.skip(
      this.options.tool
        ? `${this.options.tool} is not a tool the check can run as a task with defaults only.`
        : 'No tool here runs as a task with defaults only (every one needs an argument without a default).',
    );
  }

  /** Creates a task with the chosen tool; null when the receiver answered at once (2026-07-28 may). */
  private async createTask(ttl?: number): Promise<Subject | null> {
    const { tool, args } = await this.tool();
    const params: Record<string, unknown> = { name: tool.name, arguments: args };
    if (this.target.era !== '2026-07-28') params.task = ttl === undefined ? {} : { ttl };
    const sentAt = Date.now();
    const raw = await this.ask('tools/call', params, 30_000);
    if (this.target.era === '2026-07-28' && !(isRecord(raw) && raw.resultType === 'task')) return null;
    const created = normaliseTask(raw, { era: this.target.era });
    if (!created.value) throw new Error(`${tool.name} did not answer with a task: ${excerpt(raw)}`);
    const subject: Subject = { taskId: created.value.taskId, snapshot: created.value, sentAt };
    this.started.push(subject);
    this.target.created?.(subject.taskId, created, { tool: tool.name, args, ttl }, sentAt);
    return subject;
  }

  /** The task the cancel and result probes share, started at the first probe that needs it. */
  private async mainSubject(): Promise<Subject> {
    if (this.subject) return this.subject;
    if (this.subjectError) this.skip(this.subjectError);
    try {
      const subject = await this.createTask();
      if (!subject) {
        this.subjectError = 'The receiver answered the tool at once instead of starting a task.';
        this.skip(this.subjectError);
      }
      this.subject = subject;
      return subject;
    } catch (error) {
      if (error instanceof Skip || error instanceof Stopped) {
        if (error instanceof Skip) this.subjectError = error.message;
        throw error;
      }
      this.subjectError = `No task could be started: ${error instanceof Error ? error.message : String(error)}`;
      throw error;
    }
  }

  /** tasks/get on a task the check started; null when the receiver says it is gone (-32602). */
  private async read(subject: Subject): Promise<TaskSnapshot | null> {
    const { answer, error } = await this.attempt('tasks/get', { taskId: subject.taskId });
    if (error) {
      // -32602 is the spec's word for gone; another code for a task created here is gone all the same, and
      // the unknown-id step already grades the code.
      subject.gone = true;
      const ttl = subject.snapshot?.ttl;
      const age = Date.now() - subject.sentAt;
      if (error.code === -32602 && typeof ttl === 'number' && age < ttl - EARLY_PURGE_MARGIN_MS)
        this.broken(
          'ttl-not-purged-early',
          `A task with a ttl of ${ttl} ms was gone (-32602) ${seconds(age)} after it was created.`,
          { taskId: subject.taskId, at: Date.now(), detail: `tasks/get: ${codeText(error)}` },
        );
      return null;
    }
    const read = normaliseTask(answer, {
      expectedTaskId: subject.taskId,
      previous: subject.snapshot,
      era: this.target.era,
    });
    if (read.value) subject.snapshot = read.value;
    return read.value;
  }

  private async resultBeforeTerminal(): Promise<string> {
    if (this.target.era === '2026-07-28') {
      const { answer, error } = await this.attempt('tasks/result', {
        taskId: `taskscope-check-unknown-${crypto.randomUUID()}`,
      });
      if (error?.code === -32601) {
        this.find(
          'result-after-terminal',
          'pass',
          'tasks/result is refused with -32601: 2026-07-28 carries results in tasks/get.',
        );
        return 'refused with -32601';
      }
      const said = error ? `answered ${codeText(error)}` : `answered ${excerpt(answer)}`;
      this.broken(
        'result-after-terminal',
        `tasks/result, which 2026-07-28 does not have, ${said}; expected -32601.`,
        { detail: `tasks/result ${said}`, at: Date.now() },
      );
      return said;
    }
    const subject = await this.mainSubject();
    const before = await this.read(subject);
    if (!before || isTerminal(before.status))
      this.skip(`The task (${subject.taskId}) had ended before tasks/result could be asked early.`);
    // Held open past the probe's time means it blocks, as 2025-11-25 asks. Aborted by us, not by a deadline,
    // so the connection's health does not count it as a receiver not answering.
    if (this.stopped) throw new Stopped();
    const probe = new AbortController();
    const onStop = () => probe.abort();
    this.controller.signal.addEventListener('abort', onStop, { once: true });
    const timer = setTimeout(() => probe.abort(), this.timing.blockProbeMs);
    const askedAt = Date.now();
    try {
      const answer = await this.target.request(
        'tasks/result',
        { taskId: subject.taskId },
        { timeoutMs: 60_000, signal: probe.signal },
      );
      clearTimeout(timer);
      const now = await this.read(subject);
      if (!now) this.skip('The task was gone by the time tasks/result answered.');
      if (isTerminal(now.status)) {
        this.find(
          'result-after-terminal',
          'pass',
          'tasks/result answered once the task had ended (it ended during the probe).',
        );
        return 'the task ended during the probe';
      }
      this.broken(
        'result-after-terminal',
        `tasks/result answered while the task was still ${now.status}; 2025-11-25 says it blocks until the task ends.`,
        { taskId: subject.taskId, at: Date.now(), detail: `tasks/result answered ${excerpt(answer)}` },
      );
      return 'answered before the end';
    } catch (error) {
      if (this.stopped) throw new Stopped();
      if (error instanceof Skip) throw error;
      if (probe.signal.aborted) {
        this.find(
          'result-after-terminal',
          'pass',
          `tasks/result was held open while the task ran (${seconds(Date.now() - askedAt)}): it blocks until the end.`,
        );
        return 'blocks until the task ends';
      }
      const classified = classifyError(error, { method: 'tasks/result', taskLive: true, knownTask: true });
      if (classified.code === undefined)
        throw new Error(`tasks/result: ${classified.message}`, { cause: error });
      const now = await this.read(subject);
      if (!now) this.skip(`The task was gone when tasks/result answered ${codeText(classified)}.`);
      // An ended task's tasks/result is what the call gave, and that may be a JSON-RPC error.
      if (isTerminal(now.status)) {
        this.find('result-after-terminal', 'pass', 'tasks/result answered once the task had ended.');
        return `the task ended; answered ${classified.code}`;
      }
      this.broken(
        'result-after-terminal',
        `tasks/result on a running task answered ${codeText(classified)} at once; 2025-11-25 says it blocks until the task ends.`,
        { taskId: subject.taskId, at: Date.now(), detail: `tasks/result: ${codeText(classified)}` },
      );
      return `answered ${classified.code}`;
    } finally {
      clearTimeout(timer);
      this.controller.signal.removeEventListener('abort', onStop);
    }
  }

  private async cancelLive(): Promise<string> {
    if (!this.target.support.cancel)
      this.skip('The receiver does not declare tasks/cancel (the last step checks that it refuses it).');
    const subject = await this.mainSubject();
    const before = await this.read(subject);
    if (!before || isTerminal(before.status))
      this.skip(`The task (${subject.taskId}) had ended before it could be cancelled.`);
    const { answer, error } = await this.attempt('tasks/cancel', { taskId: subject.taskId });
    const offence = (detail: string): Offence => ({ taskId: subject.taskId, at: Date.now(), detail });
    if (error) {
      const now = await this.read(subject);
      if (now && isTerminal(now.status) && now.status !== 'cancelled')
        this.skip(`The task ended (${now.status}) just as it was cancelled.`);
      this.broken(
        'capability-tasks-cancel',
        `tasks/cancel on a running task was refused: ${codeText(error)}, though the receiver declares tasks/cancel.`,
        offence(`tasks/cancel: ${codeText(error)}`),
      );
      return 'refused';
    }
    if (this.target.era !== '2026-07-28') {
      const said = normaliseTask(answer, { expectedTaskId: subject.taskId, era: this.target.era }).value;
      if (said?.status !== 'cancelled') {
        this.broken(
          'capability-tasks-cancel',
          `tasks/cancel answered status ${said?.status ?? 'none'}; the task must be cancelled before the answer.`,
          offence(`tasks/cancel answered ${excerpt(answer)}`),
        );
        return `answered ${said?.status ?? 'no status'}`;
      }
    }
    // 2026-07-28 only acknowledges: the task is watched for a little while to read cancelled.
    const until = Date.now() + (this.target.era === '2026-07-28' ? this.timing.cancelSettleMs : 0);
    let now = await this.read(subject);
    while (now?.status !== 'cancelled' && now && !isTerminal(now.status) && Date.now() < until) {
      await this.sleep(Math.min(500, until - Date.now()));
      now = await this.read(subject);
    }
    if (now === null) {
      this.find('capability-tasks-cancel', 'pass', 'tasks/cancel was accepted and the task is gone.');
      return 'cancelled and removed';
    }
    if (now.status === 'cancelled') {
      this.find(
        'capability-tasks-cancel',
        'pass',
        'tasks/cancel moved a running task to cancelled, and tasks/get agrees.',
      );
      return 'cancelled';
    }
    if (this.target.era === '2026-07-28') {
      this.find(
        'capability-tasks-cancel',
        'info',
        `tasks/cancel was acknowledged; the task still reads ${now.status} ${seconds(this.timing.cancelSettleMs)} later (2026-07-28 lets the receiver go on).`,
        offence(`tasks/get after cancel: ${now.status}`),
      );
      return `still ${now.status}`;
    }
    this.broken(
      'capability-tasks-cancel',
      `tasks/cancel answered cancelled, but tasks/get then said ${now.status}.`,
      offence(`tasks/get after cancel: ${now.status}`),
    );
    return `tasks/get said ${now.status}`;
  }

  private async cancelTerminal(): Promise<string> {
    if (!appliesTo(ruleDef('terminal-cancel-refused'), this.target.era))
      this.skip('2026-07-28 does not say how a cancel of an ended task is answered.');
    if (!this.target.support.cancel)
      this.skip('The receiver does not declare tasks/cancel (the last step checks that it refuses it).');
    const subject = await this.mainSubject();
    let now = await this.read(subject);
    // The task may still run (its cancel was skipped or the receiver went on): give it the time a wait allows.
    const until = Date.now() + this.timing.maxExpiryWaitMs;
    while (now && !isTerminal(now.status) && Date.now() < until) {
      await this.sleep(Math.min(Math.max(now.pollInterval ?? 1000, 250), 2000, until - Date.now()));
      now = await this.read(subject);
    }
    if (!now) this.skip('The receiver removed the task once it ended: there is no ended task to cancel.');
    if (!isTerminal(now.status))
      this.skip(`The task was still ${now.status} after ${seconds(this.timing.maxExpiryWaitMs)}.`);
    const ended = now.status;
    const { answer, error } = await this.attempt('tasks/cancel', { taskId: subject.taskId });
    const offence = (detail: string): Offence => ({ taskId: subject.taskId, at: Date.now(), detail });
    if (error?.code === -32601) {
      // Not a verdict on ended tasks: the method the receiver declares is missing altogether.
      this.broken(
        'capability-tasks-cancel',
        `tasks/cancel is declared, but answered ${codeText(error)}.`,
        offence(`tasks/cancel: ${codeText(error)}`),
      );
      return 'answered -32601';
    }
    if (error?.code === -32602)
      this.find(
        'terminal-cancel-refused',
        'pass',
        `tasks/cancel on a ${ended} task was refused with -32602.`,
      );
    else {
      const said = error ? `refused it with ${codeText(error)}` : `accepted it (${excerpt(answer)})`;
      this.broken(
        'terminal-cancel-refused',
        `tasks/cancel on a ${ended} task: the receiver ${said}; the spec asks for -32602.`,
        offence(`tasks/cancel on ${ended}: ${said}`),
      );
    }
    const after = await this.read(subject);
    if (after && after.status !== ended) {
      this.broken(
        'status-transitions',
        `A ${ended} task read ${after.status} after a second tasks/cancel: an ended task must keep its status.`,
        offence(`${ended} → ${after.status}`),
      );
    }
    return error ? `answered ${error.code}` : 'accepted';
  }

  private async shortTtl(): Promise<string> {
    const requested = this.timing.shortTtlMs;
    const sentAt = Date.now();
    const subject = await this.createTask(requested);
    if (!subject) this.skip('The receiver answered the tool at once instead of starting a task.');
    const ttl = subject.snapshot?.ttl;
    const offence = (detail: string): Offence => ({ taskId: subject.taskId, at: Date.now(), detail });
    if (ttl === undefined) {
      this.broken(
        'requested-ttl-honoured',
        `Asked for a ttl of ${requested} ms, the create answer carries no ttl; the actual ttl must be said.`,
        offence('no ttl in the create answer'),
      );
    } else if (ttl === requested) {
      this.find('requested-ttl-honoured', 'pass', `A requested ttl of ${requested} ms was honoured.`);
    } else {
      // Receivers may override it: used, that MAY is information, never a fault.
      this.broken(
        'requested-ttl-honoured',
        `A requested ttl of ${requested} ms was adjusted to ${ttl === null ? 'none (no expiry)' : `${ttl} ms`} and said in the answer (receivers may).`,
      );
    }
    const first = await this.read(subject);
    if (!first) {
      this.broken(
        'ttl-not-purged-early',
        'The task was gone (-32602) right after it was created, before its ttl.',
        offence('tasks/get right after create: -32602'),
      );
      return 'gone at once';
    }
    if (ttl !== undefined && first.ttl !== undefined && first.ttl !== ttl)
      this.broken(
        'requested-ttl-honoured',
        `The create answer said ttl ${ttl} ms, tasks/get says ${first.ttl} ms.`,
        offence(`ttl ${ttl} then ${first.ttl}`),
      );
    const effective = first.ttl ?? ttl;
    if (effective === null || effective === undefined) return 'no expiry to wait for';
    const wait = sentAt + effective + this.timing.expiryGraceMs - Date.now();
    if (effective > this.timing.maxExpiryWaitMs)
      return `ttl ${seconds(effective)}: expiry not waited for (the check waits ${seconds(this.timing.maxExpiryWaitMs)} at most)`;
    if (wait > 0) await this.sleep(wait);
    const later = await this.read(subject);
    if (!later) {
      this.find(
        'ttl-not-kept-beyond',
        'pass',
        `The task was gone (-32602) ${seconds(this.timing.expiryGraceMs)} after its ttl of ${effective} ms.`,
      );
      return 'purged after its ttl';
    }
    this.find(
      'ttl-not-kept-beyond',
      'info',
      `The task was still there ${seconds(this.timing.expiryGraceMs)} after its ttl of ${effective} ms (receivers may keep it a while).`,
    );
    return 'kept past its ttl';
  }

  private async listPaging(): Promise<string> {
    if (this.target.era === '2026-07-28') this.skip('2026-07-28 has no tasks/list.');
    if (!this.target.support.list)
      this.skip('The receiver does not declare tasks/list (the last step checks that it refuses it).');
    const ids = new Set<string>();
    const cursors = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    let problem: string | undefined;
    let stoppedAt: string | undefined;
    while (pages < CHECK_MAX_PAGES) {
      const page = await this.attempt('tasks/list', cursor ? { cursor } : {});
      if (page.error) {
        this.broken(
          'capability-tasks-list',
          `tasks/list is declared, but ${pages === 0 ? 'the first page' : `page ${pages + 1}`} was refused: ${codeText(page.error)}.`,
          { detail: `tasks/list: ${codeText(page.error)}`, at: Date.now() },
        );
        return `refused: ${page.error.code}`;
      }
      const raw = page.answer;
      pages++;
      if (!isRecord(raw) || !Array.isArray(raw.tasks)) {
        problem = `page ${pages} of tasks/list has no tasks array: ${excerpt(raw)}`;
        break;
      }
      for (const item of raw.tasks)
        if (isRecord(item) && typeof item.taskId === 'string' && ids.size < CHECK_MAX_LISTED)
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
      for (const subject of this.started)
        if (!ids.has(subject.taskId) && !subject.gone && (await this.read(subject)))
          missing.push(subject.taskId);
    const invalid = await this.attempt('tasks/list', { cursor: `taskscope-check-not-a-cursor-${pages}` });
    const detail = `${pages} page${pages === 1 ? '' : 's'}, ${ids.size} tasks${stoppedAt ? `, ${stoppedAt}` : ''}`;
    if (problem) {
      this.broken('list-paging', `tasks/list: ${problem}.`, { detail: problem, at: Date.now() });
    } else if (missing.length > 0) {
      this.broken(
        'list-paging',
        `tasks/list (${detail}) leaves out ${missing.length} task(s) that tasks/get knows.`,
        { taskId: missing[0], at: Date.now(), detail: `not listed: ${missing[0]}` },
      );
    } else if (invalid.error?.code !== -32602) {
      const said = invalid.error ? codeText(invalid.error) : `a page (${excerpt(invalid.answer)})`;
      this.broken(
        'list-paging',
        `tasks/list with a cursor it never issued answered ${said}; expected -32602.`,
        {
          detail: `invalid cursor: ${said}`,
          at: Date.now(),
        },
      );
    } else {
      this.find(
        'list-paging',
        'pass',
        `tasks/list followed: ${detail}${pages > 1 ? ', every cursor new' : ' (one page: paging not needed)'}; an unknown cursor gets -32602.`,
      );
    }
    this.find('capability-tasks-list', 'pass', 'The receiver declares tasks/list, and it answers.');
    return detail;
  }

  private async capabilityAbsent(): Promise<string> {
    const methods: Array<'tasks/list' | 'tasks/cancel'> = [];
    if (this.target.era === '2026-07-28') methods.push('tasks/list');
    else {
      if (!this.target.support.list) methods.push('tasks/list');
      if (!this.target.support.cancel) methods.push('tasks/cancel');
    }
    if (methods.length === 0)
      this.skip('The receiver declares both tasks/list and tasks/cancel: nothing absent to ask for.');
    const notes: string[] = [];
    for (const method of methods) {
      const params =
        method === 'tasks/cancel' ? { taskId: `taskscope-check-unknown-${crypto.randomUUID()}` } : {};
      const { answer, error } = await this.attempt(method, params);
      const why =
        this.target.era === '2026-07-28' ? 'which 2026-07-28 does not have' : 'which it does not declare';
      if (error?.code === -32601) {
        this.find('capability-absent-error', 'pass', `${method}, ${why}, is refused with -32601.`);
        notes.push(`${method}: -32601`);
        continue;
      }
      const said = error ? `answered ${codeText(error)}` : `answered ${excerpt(answer)}`;
      this.broken('capability-absent-error', `${method}, ${why}, ${said}; expected -32601.`, {
        detail: `${method}: ${said}`,
        at: Date.now(),
      });
      notes.push(`${method}: ${error?.code ?? 'answered'}`);
    }
    return notes.join('; ');
  }

  /** Cancels what the check started and still runs, also after a stop (with a fresh deadline of its own). */
  private async cleanUp(): Promise<void> {
    if (!this.target.support.cancel) return;
    for (const subject of this.started) {
      if (subject.gone || (subject.snapshot && isTerminal(subject.snapshot.status))) continue;
      try {
        await this.target.request(
          'tasks/cancel',
          { taskId: subject.taskId },
          { timeoutMs: this.timing.requestMs, signal: AbortSignal.timeout(this.timing.requestMs) },
        );
      } catch {
        // Ended meanwhile, or gone: nothing left to stop.
      }
    }
  }
}

const VERDICT_RANK: Record<Verdict, number> = { unobserved: 0, pass: 1, info: 2, warn: 3, fail: 4 };
