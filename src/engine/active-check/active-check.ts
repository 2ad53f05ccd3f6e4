import {
  classifyError,
  isObject,
  isTerminal,
  normaliseTask,
  type TaskSnapshot,
  type ToolInfo,
} from '../../mcp';
import type {
  ActiveCheckState,
  ActiveCheckStep,
  Offence,
  RuleId,
  RuleResult,
  Verdict,
} from '../../rules/report-types';
import { appliesTo, ruleDef, strengthFor } from '../../rules/catalogue';
import { earlyPurgeTolerance } from '../../rules/task-rules';
import { CHECK_STEPS, checkableTools, seconds, type CheckStepId, type CheckableTool } from './plan';
import { capabilityAbsent, listPaging } from './list-steps';
import {
  Skip,
  Stopped,
  TIMING,
  codeText,
  excerpt,
  skip,
  type Attempt,
  type CheckCall,
  type CheckTarget,
  type Probe,
  type Subject,
  type Timing,
  withOwnSignal,
} from './probe';
import { cancelLive, cancelTerminal, resultBeforeTerminal, shortTtl, unknownId } from './task-steps';
import { plainCallOfRequired, taskCallOfForbidden } from './tool-steps';
import { readAfterEnd } from './read-after-end';

export { CHECK_STEPS, checkableTools, type CheckableTool } from './plan';
export type { CheckCall, CheckTarget } from './probe';

/**
 * The report card's active check: probes a receiver for what watching alone cannot show — an
 * unknown id, a cancel of a live and of an ended task, tasks/result before the end, a short requested ttl,
 * tasks/list paging, methods it does not declare. It runs in the engine, on the person's request only (it
 * creates tasks on their server), with only tools the receiver offers. Every request has a deadline; every
 * wait is bounded; Stop aborts what is in flight and cancels the tasks it started.
 */

export interface CheckOptions {
  /** The tool the person picked; otherwise the first one the check can fill. */
  tool?: string;
  /** Arguments for `tool` given by the person: the tool is then run with these instead of its defaults. */
  args?: Record<string, unknown>;
  onProgress?: (state: ActiveCheckState) => void;
  /** Tests shorten the waits; the defaults are what a person gets. */
  timing?: Partial<Timing>;
}

export class ActiveCheck implements Probe {
  private readonly controller = new AbortController();
  readonly timing: Timing;
  private state: ActiveCheckState;
  readonly started: Subject[] = [];
  private subject: Subject | undefined;
  private subjectError: string | undefined;
  private chosen: CheckableTool | undefined | null;

  constructor(
    readonly target: CheckTarget,
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

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops what runs now; the tasks it started are cancelled where the receiver allows it. */
  stop(): void {
    this.controller.abort();
  }

  /** Set when the check stopped itself at its overall limit rather than at the person's Stop. */
  private timedOut = false;

  async run(): Promise<ActiveCheckState> {
    this.state = { ...this.state, running: true, startedAt: Date.now() };
    this.emit();
    const overall = setTimeout(() => {
      this.timedOut = true;
      this.stop();
    }, this.timing.overallMs);
    const era = this.target.era;
    await this.step('unknown-id', () => unknownId(this));
    await this.step('plain-call-required', () => plainCallOfRequired(this));
    await this.step('task-call-forbidden', () => taskCallOfForbidden(this));
    await this.step('result-before-terminal', () => resultBeforeTerminal(this));
    await this.step('cancel-live', () => cancelLive(this));
    await this.step('cancel-terminal', () => cancelTerminal(this));
    await this.step('short-ttl', () =>
      era === '2026-07-28'
        ? skip('2026-07-28 has no ttl to ask for: the receiver decides each task’s lifetime.')
        : shortTtl(this),
    );
    await this.step('list-paging', () => listPaging(this));
    await this.step('capability-absent', () => capabilityAbsent(this));
    await this.step('read-after-end', () => readAfterEnd(this));
    clearTimeout(overall);
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

  private stopNote(): string {
    return this.timedOut
      ? `Stopped: the check reached its overall limit of ${seconds(this.timing.overallMs)}.`
      : 'Stopped by the person.';
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
      if (this.stopped) this.setStep(id, { state: 'stopped', note: this.stopNote() });
      else if (error instanceof Skip) this.setStep(id, { state: 'skipped', note: error.message });
      else
        this.setStep(id, {
          state: 'error',
          note: error instanceof Error ? error.message : String(error),
        });
    }
  }

  find(id: RuleId, verdict: Verdict, reason: string, firstOffence?: Offence): void {
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
  broken(id: RuleId, reason: string, offence?: Offence): void {
    const strength = strengthFor(ruleDef(id), this.target.era);
    this.find(id, strength === 'MUST' ? 'fail' : strength === 'SHOULD' ? 'warn' : 'info', reason, offence);
  }

  notJudged(id: RuleId, reason: string): never {
    if (appliesTo(ruleDef(id), this.target.era) && !this.state.findings.some((f) => f.id === id)) {
      const why = `${reason.charAt(0).toLowerCase()}${reason.slice(1)}`.replace(/\.$/, '');
      const result: RuleResult = {
        id,
        verdict: 'unobserved',
        observations: 0,
        reason: `Not judged: ${why}`,
        source: 'active',
      };
      this.state = { ...this.state, findings: [...this.state.findings, result] };
    }
    skip(`${reason.charAt(0).toUpperCase()}${reason.slice(1)}`);
  }

  /**
   * One request with the check's deadline and its stop signal. Refused for its rate (HTTP 429, -32429), it is
   * sent again after the wait the receiver names (or a second), a few times: the check must not hammer, and a
   * limit it meets is not the receiver failing the step.
   */
  async ask(
    method: string,
    params: Record<string, unknown>,
    timeoutMs = this.timing.requestMs,
  ): Promise<unknown> {
    for (let retry = 0; ; retry++) {
      if (this.stopped) throw new Stopped();
      try {
        return await withOwnSignal(this.controller.signal, (signal) =>
          this.target.request(method, params, { timeoutMs, signal }),
        );
      } catch (error) {
        if (this.stopped) throw new Stopped();
        const classified = classifyError(error, { method });
        if (classified.kind !== 'rate-limited' || retry >= this.timing.rateLimitRetries) throw error;
        await this.sleep(
          Math.min(classified.retryAfterMs ?? this.timing.rateLimitWaitMs, this.timing.maxRateLimitWaitMs),
        );
      }
    }
  }

  /** The request's JSON-RPC error, or the answer; a missing answer (network, deadline) is thrown on. */
  async attempt(method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<Attempt> {
    try {
      return { answer: await this.ask(method, params, timeoutMs) };
    } catch (error) {
      if (error instanceof Stopped) throw error;
      const classified = classifyError(error, { method });
      if (classified.code === undefined)
        throw new Error(`${method}: ${classified.message}`, { cause: error });
      return { error: classified };
    }
  }

  sleep(ms: number): Promise<void> {
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

  private toolList: Promise<readonly ToolInfo[]> | undefined;

  tools(): Promise<readonly ToolInfo[]> {
    this.toolList ??= this.target
      .listTools({ timeoutMs: this.timing.requestMs, signal: this.signal })
      .catch((error: unknown) => {
        this.toolList = undefined;
        if (this.stopped) throw new Stopped();
        throw error;
      });
    return this.toolList;
  }

  /** The tool the check runs, chosen once: the person's pick, else the first it can fill. */
  async taskTool(): Promise<CheckableTool> {
    if (this.chosen === undefined) {
      if (!this.target.support.toolCall) this.chosen = null;
      else {
        if (this.stopped) throw new Stopped();
        const tools = await this.tools();
        const candidates = checkableTools(tools);
        const named = tools.find((t) => t.name === this.options.tool);
        if (named && this.options.args && named.taskSupport !== 'forbidden')
          candidates.unshift({ tool: named, args: this.options.args });
        this.chosen =
          candidates.find((c) => c.tool.name === this.options.tool) ??
          (this.options.tool === undefined ? candidates[0] : undefined) ??
          null;
      }
    }
    if (this.chosen) return this.chosen;
    if (!this.target.support.toolCall)
      skip('The receiver declares no task-augmented tools/call: the check starts no tasks.');
    skip(
      this.options.tool
        ? `${this.options.tool} is not a tool the check can run as a task with defaults only.`
        : 'No tool here runs as a task with defaults only (every one needs an argument without a default).',
    );
  }

  /** Creates a task with the chosen tool; null when the receiver answered at once (2026-07-28 may). */
  async createTask(ttl?: number): Promise<Subject | null> {
    const { tool, args } = await this.taskTool();
    const params: Record<string, unknown> = { name: tool.name, arguments: args };
    if (this.target.era !== '2026-07-28') params.task = ttl === undefined ? {} : { ttl };
    const sentAt = Date.now();
    const raw = await this.ask('tools/call', params, this.timing.createMs);
    if (this.target.era === '2026-07-28' && !(isObject(raw) && raw.resultType === 'task')) return null;
    const subject = this.adopt(raw, { tool: tool.name, args, ttl }, sentAt);
    if (!subject) throw new Error(`${tool.name} did not answer with a task: ${excerpt(raw)}`);
    return subject;
  }

  adopt(raw: unknown, call: CheckCall, sentAt: number): Subject | null {
    const created = normaliseTask(raw, { era: this.target.era });
    if (!created.value) return null;
    const subject: Subject = { taskId: created.value.taskId, snapshot: created.value, sentAt };
    ended(subject, created.value);
    this.started.push(subject);
    this.target.created?.(subject.taskId, created, call, sentAt);
    return subject;
  }

  /** The task the cancel and result probes share, started at the first probe that needs it. */
  async mainSubject(): Promise<Subject> {
    if (this.subject) return this.subject;
    if (this.subjectError) skip(this.subjectError);
    try {
      const subject = await this.createTask();
      if (!subject) {
        this.subjectError = 'The receiver answered the tool at once instead of starting a task.';
        skip(this.subjectError);
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

  /**
   * tasks/get on a task the check started; null when the receiver says it is gone (-32602). The answer joins
   * the task's observations (target.observed), so the passive rules judge it with the rest.
   */
  async read(subject: Subject): Promise<TaskSnapshot | null> {
    const sentAt = Date.now();
    const { answer, error } = await this.attempt('tasks/get', { taskId: subject.taskId });
    if (error) {
      // -32602 is the spec's word for gone; another code for a task created here is gone all the same, and
      // the unknown-id step already grades the code.
      subject.gone = true;
      const ttl = subject.snapshot?.ttl;
      const age = Date.now() - subject.sentAt;
      // A task cancelled here may be deleted at once (2025-11-25: "receivers MAY delete cancelled tasks at
      // their discretion at any time"): gone then is no early purge.
      if (
        error.code === -32602 &&
        !subject.cancelled &&
        typeof ttl === 'number' &&
        age < ttl - earlyPurgeTolerance(subject.snapshot?.pollInterval)
      )
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
    // What the check reads is evidence like any poll: it joins the task's observations.
    this.target.observed?.(subject.taskId, read, { source: 'check', sentAt });
    if (read.value) {
      subject.snapshot = read.value;
      ended(subject, read.value);
    }
    return read.value;
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

/** The first terminal status the check read of a task, and when. */
function ended(subject: Subject, snapshot: TaskSnapshot): void {
  const status = snapshot.status;
  if (subject.ended || status === null || !isTerminal(status)) return;
  subject.ended = { status, at: Date.now() };
}

const VERDICT_RANK: Record<Verdict, number> = { unobserved: 0, pass: 1, info: 2, warn: 3, fail: 4 };
