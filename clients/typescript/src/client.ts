/**
 * The public client: the hitl HTTP API as typed methods. How a call
 * travels (fetch, failover, retries) is core/transport.ts, the event
 * stream core/streaming.ts, the error type core/errors.ts, the request
 * bodies and the reading of outcomes core/wire.ts.
 */
import { HitlError, errorCode } from "./core/errors.js";
import { eventStream } from "./core/streaming.js";
import { Transport, randomId, env, retryable, type ApiCall } from "./core/transport.js";
import { agentHome, decisionOf, explain, operationBody, outcome, seg, unwrapQuestion, valueOf, withTimeout } from "./core/wire.js";
import type {
  ApprovalOutcome, Checkpoint, HitlEvent, Option, PolicyDecision, Question, QuestionContext, Response, Whoami,
} from "./types.js";

export type { ApiCall } from "./core/transport.js";

/** Options of a Client. Every field is optional. */
export interface ClientOptions {
  /** Base URL(s) of the service, comma-separated replicas (default HITL_URL, else http://127.0.0.1:7070). */
  url?: string | string[];
  /** Bearer token (default HITL_TOKEN). */
  token?: string;
  /** The run questions go to when a call names none (default `ts-$USER@PRINCIPAL`, from GET /api/whoami). */
  run?: string;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof fetch;
  /** Bounds of the backoff while the service cannot be reached, in ms (default 100 and 5000). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** How long one long poll asks the service to hold, in seconds (default 60). */
  pollWaitSeconds?: number;
  /** Waits ms or until signal aborts (injected by tests; default setTimeout). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * The agent's home directory, sent with shell and file operations so the
   * policy reads `~` in them as this agent's home (docs/shell-policy.md),
   * as hitl's own hooks do. Default HOME when it is an absolute path; ""
   * sends none.
   */
  home?: string;
}

export interface AskOptions {
  /** Choices: labels, or {label, value, description}. */
  options?: Array<string | Option>;
  /** Several options may be picked: the answer is a string[]. */
  multi?: boolean;
  /** A yes/no question: the answer is a boolean. */
  yesNo?: boolean;
  /** The answer used when nobody answers in time. */
  default?: string | boolean | string[];
  /** Seconds until the question times out (the service clamps it to its bounds). */
  timeout?: number;
  run?: string;
  /** Idempotency key: asking again with it (after a crash) finds the same question. */
  key?: string;
  /** What the person needs to decide (shown with the question). */
  context?: string | QuestionContext;
  /** Never logged, never shown in Slack; handed to the asker once. */
  sensitive?: boolean;
  /** false: create the question and return it at once (then `wait(question.id)`). */
  wait?: boolean;
  /**
   * hitl POSTs the question's outcome here as a signed webhook
   * (docs/webhooks.md), for an agent that saved its state and ended: verify
   * it with verifyWebhook. A host the service does not allow is refused
   * with HitlError `invalid` before anything is asked.
   */
  callbackUrl?: string;
  assignees?: string[];
  channel?: string;
  signal?: AbortSignal;
}

export interface ApprovalOptions {
  /** The policy's operation type: file_delete, file_write, file_read, shell, api_call, spawn_agent or your own (default "custom"). */
  opType?: string;
  /** What it acts on, exactly as the agent will use it (default: `input` as JSON). */
  resource?: string;
  /** The tool's input: sent as the resource (JSON) when no resource is given; an edit comes back parsed. */
  input?: unknown;
  /** Why the agent wants to do it (shown to people). */
  reason?: string;
  risk?: "low" | "medium" | "high" | "critical";
  run?: string;
  /** The agent was about to ask its own person: only a rule a person wrote or taught allows. */
  prompted?: boolean;
  /** The agent cannot run the operation with other input: people approve or deny it as it is (no edit is offered). */
  noEdit?: boolean;
  /** Seconds until the approval times out. */
  timeout?: number;
  /** hitl POSTs the approval's outcome here as a signed webhook (see AskOptions.callbackUrl). */
  callbackUrl?: string;
  key?: string;
  channel?: string;
  signal?: AbortSignal;
}

/**
 * approved; edited (approved with other input: `editedInput`); denied
 * (`reason`); responded (not approved: the person replied in words instead,
 * `message` is what they want the agent to do); timed_out.
 */
export type DecisionOutcome = "approved" | "denied" | "edited" | "responded" | "timed_out";

/** How an approval request was decided: by the policy alone (`by: "policy"`) or by a person. */
export interface Decision {
  outcome: DecisionOutcome;
  /** The grant's message (approved, edited), or the person's reply (responded). */
  message?: string;
  /** Why it was denied: the person's reason, or the policy rule's. */
  reason?: string;
  /** The input as the person edited it (outcome "edited"): parsed JSON when `input` was given, else the string. */
  editedInput?: unknown;
  /** "policy", or who decided ("api:alice", "slack:U…"), or "system" on timeout. */
  by?: string;
  /** The person approved and chose "always allow": hitl learned a rule allowing exactly this from now on. */
  always?: boolean;
  /** The policy rule that decided or asked. */
  rule?: string;
  /** The approval people were asked (none when the policy decided alone). */
  questionId?: string;
  question?: Question;
}

export interface CheckpointOptions { iter?: number; max?: number; mode?: string; model?: string; signal?: AbortSignal }

export interface EventsOptions {
  /** Replay the log after this event id ("0": from the start); default: live events only. */
  after?: string;
  signal?: AbortSignal;
}

/**
 * The hitl HTTP API as a typed client, with the Go SDK's retries and
 * failover: a wait outlives a restart of the service and moves to the next
 * replica; a 429 waits Retry-After and tries again.
 */
export class Client {
  readonly urls: string[];
  readonly token?: string;
  private readonly transport: Transport;
  private runName?: string;
  private readonly pollWait: number;
  private whoamiCache?: Promise<Whoami>;
  /** The agent's home sent with shell and file operations (undefined: none). */
  readonly home?: string;

  constructor(opts: ClientOptions = {}) {
    this.transport = new Transport(opts);
    this.urls = this.transport.urls;
    this.token = this.transport.token;
    this.runName = opts.run;
    this.pollWait = opts.pollWaitSeconds ?? 60;
    this.home = agentHome(opts.home);
  }

  // ---- questions ----

  /**
   * Asks a person and waits for the answer: a string, a string[] for
   * `multi`, a boolean for `yesNo`. With `wait: false` it returns the
   * created Question at once. Throws HitlError `timed_out` (no answer and
   * no default) or `cancelled`.
   */
  ask(question: string, opts: AskOptions & { wait: false }): Promise<Question>;
  ask(question: string, opts?: AskOptions): Promise<string | string[] | boolean>;
  async ask(question: string, opts: AskOptions = {}): Promise<string | string[] | boolean | Question> {
    const body: Record<string, unknown> = { question };
    if (opts.yesNo) {
      body.responseType = "boolean";
    } else if (opts.options?.length) {
      body.responseType = "choice";
      body.options = opts.options.map((o) => (typeof o === "string" ? { label: o } : o));
      if (opts.multi) body.multiSelect = true;
    } else if (opts.multi) {
      throw new HitlError("invalid", "multi needs options to pick from");
    }
    if (opts.default !== undefined) {
      body.defaultResponse = { value: opts.default };
    }
    if (opts.timeout !== undefined) body.timeoutMinutes = opts.timeout / 60;
    if (opts.context !== undefined) body.context = typeof opts.context === "string" ? { currentStep: opts.context } : opts.context;
    if (opts.sensitive) body.sensitive = true;
    if (opts.assignees) body.assignees = opts.assignees;
    if (opts.channel) body.channel = opts.channel;
    if (opts.callbackUrl !== undefined) body.callbackUrl = opts.callbackUrl;
    const run = opts.run ?? (await this.defaultRun(opts.signal));
    const q = await this.create(run, body, opts.key, opts.signal);
    if (opts.wait === false) return q;
    if (q.type === "non_blocking" && q.status === "pending") {
      return valueOf(q.defaultResponse);
    }
    return valueOf(outcome(await this.settle(q, opts.signal)).response);
  }

  /**
   * Waits until question id is settled and takes its outcome, like ask.
   * `timeout` (seconds) bounds this wait on the client's side: past it,
   * HitlError `deadline_exceeded` while the question stays pending.
   */
  async wait(id: string, opts: { timeout?: number; signal?: AbortSignal } = {}): Promise<string | string[] | boolean> {
    return valueOf(outcome(await this.waitQuestion(id, opts)).response);
  }

  /** Waits until question id is settled and takes it (the settled Question, whatever its status). */
  async waitQuestion(id: string, opts: { timeout?: number; signal?: AbortSignal } = {}): Promise<Question> {
    const { signal, done } = withTimeout(opts.signal, opts.timeout);
    try {
      return await this.settle(await this.transport.retrying(() => this.question(id, signal), signal), signal);
    } catch (e) {
      if (opts.timeout !== undefined && signal?.aborted && !opts.signal?.aborted) {
        throw new HitlError("deadline_exceeded", `question ${id} is still pending after ${opts.timeout}s; wait again with wait(${JSON.stringify(id)})`);
      }
      throw e;
    } finally {
      done();
    }
  }

  /** GET /api/questions/{id}. */
  async question(id: string, signal?: AbortSignal): Promise<Question> {
    const r = await this.call<{ question?: Question } & Partial<Question>>({ method: "GET", path: `/api/questions/${seg("question id", id)}`, replay: true, signal });
    return unwrapQuestion(r);
  }

  /** POST /api/questions/{id}/cancel. */
  async cancel(id: string, reason?: string, signal?: AbortSignal): Promise<void> {
    await this.call({ method: "POST", path: `/api/questions/${seg("question id", id)}/cancel`, body: reason ? { reason } : {}, replay: false, signal });
  }

  /**
   * Answers question id as a person would from Slack or the web (a token
   * with the answer scope; nobody answers their own question).
   */
  async answer(id: string, response: Partial<Response> & { value: unknown }, signal?: AbortSignal): Promise<Question> {
    const r = await this.call<{ question: Question }>({ method: "POST", path: `/api/questions/${seg("question id", id)}/answer`, body: { response }, replay: false, signal });
    return r.question;
  }

  // ---- approvals and policy ----

  /**
   * Asks the policy about an operation and, when it says ask, waits for a
   * person: approved, denied (with the reason), edited (with the edited
   * input), or timed_out. The policy's allow or deny returns at once with
   * `by: "policy"` and its rule. Throws HitlError `cancelled` when the
   * approval was cancelled.
   */
  async requestApproval(action: string, opts: ApprovalOptions = {}): Promise<Decision> {
    const res = await this.approve(action, opts);
    if (res.decision === "allow") return { outcome: "approved", by: "policy", rule: res.rule };
    if (res.decision === "deny") {
      return { outcome: "denied", by: "policy", rule: res.rule, reason: `denied by policy rule ${res.rule}` + explain(res) };
    }
    if (!res.questionId) throw new HitlError("internal", "the service asked without a question to wait on");
    // opts.timeout is the approval's own (the service times it out); the wait itself is unbounded.
    return this.awaitApproval(res.questionId, { input: opts.input, resource: opts.resource, rule: res.rule, question: res.question, signal: opts.signal });
  }

  /** POST /api/approvals: the policy's decision and, for ask, the approval created (without waiting). */
  async approve(action: string, opts: ApprovalOptions = {}): Promise<ApprovalOutcome> {
    const body = operationBody(action, opts, this.home);
    if (opts.callbackUrl !== undefined) body.callbackUrl = opts.callbackUrl;
    body.runId = opts.run ?? (await this.defaultRun(opts.signal));
    if (opts.timeout !== undefined) body.timeoutMinutes = opts.timeout / 60;
    if (opts.channel) body.channel = opts.channel;
    const key = opts.key ?? (this.urls.length > 1 ? `failover:${randomId()}` : undefined);
    if (key) body.idempotencyKey = key;
    return this.call<ApprovalOutcome>({ method: "POST", path: "/api/approvals", body, replay: key !== undefined, signal: opts.signal });
  }

  /**
   * Waits for approval questionId and maps it to a Decision (see
   * requestApproval). `timeout` (seconds) bounds this wait on the client's
   * side: past it, HitlError `deadline_exceeded`, the approval still pending.
   */
  async awaitApproval(questionId: string, opts: { input?: unknown; resource?: string; rule?: string; question?: Question; timeout?: number; signal?: AbortSignal } = {}): Promise<Decision> {
    const { signal, done } = withTimeout(opts.signal, opts.timeout);
    let q: Question;
    try {
      q = await this.settle(opts.question?.status === "pending" || !opts.question ? await this.transport.retrying(() => this.question(questionId, signal), signal) : opts.question, signal);
    } catch (e) {
      if (opts.timeout !== undefined && signal?.aborted && !opts.signal?.aborted) {
        throw new HitlError("deadline_exceeded", `approval ${questionId} is still pending after ${opts.timeout}s; wait again with awaitApproval(${JSON.stringify(questionId)})`);
      }
      throw e;
    } finally {
      done();
    }
    return decisionOf(q, opts);
  }

  /** What the policy decides about an operation, without asking anyone (POST /api/policy/check). */
  async check(opType: string, resource: string, opts: { operation?: string; risk?: ApprovalOptions["risk"]; prompted?: boolean; signal?: AbortSignal } = {}): Promise<PolicyDecision> {
    const body = operationBody(opts.operation ?? `${opType} ${resource}`.trim(), { opType, resource, risk: opts.risk, prompted: opts.prompted }, this.home);
    return this.call<PolicyDecision>({ method: "POST", path: "/api/policy/check", body, replay: true, signal: opts.signal });
  }

  // ---- steering (loop:current) ----

  /**
   * Reports an iteration boundary of run: returns at once while the run
   * runs (with a new model or instruction when a person gave one), waits
   * while it is paused, and throws HitlError `cancelled` once the run was
   * cancelled or ended.
   */
  async checkpoint(run: string, opts: CheckpointOptions = {}): Promise<Checkpoint> {
    const body: Record<string, unknown> = { iter: opts.iter ?? 0 };
    if (opts.max !== undefined) body.max = opts.max;
    if (opts.mode) body.mode = opts.mode;
    if (opts.model) body.model = opts.model;
    const backoff = this.transport.backoff();
    for (;;) {
      let cp: Checkpoint;
      try {
        cp = await this.call<Checkpoint>({ method: "POST", path: `/api/runs/${seg("run id", run)}/checkpoint`, query: { wait: `${this.pollWait}s` }, body, replay: true, signal: opts.signal });
      } catch (e) {
        if (!retryable(e) || opts.signal?.aborted) throw e;
        await this.transport.sleep(backoff.next(), opts.signal);
        continue;
      }
      backoff.reset();
      if (cp.status === "paused") continue;
      if (cp.status === "cancelled" || cp.status === "done" || cp.status === "aborted") {
        throw new HitlError("cancelled", `run ${run} is ${cp.status}` + (cp.reason ? `: ${cp.reason}` : ""));
      }
      return cp;
    }
  }

  /** Reports that run finished (loop:current DONE): its pending questions are cancelled. */
  async done(run: string, signal?: AbortSignal): Promise<Checkpoint> {
    return this.publish(run, "DONE", undefined, signal);
  }

  /** Reports that run gave up (loop:current ABORT), saying why. */
  async abort(run: string, reason: string, signal?: AbortSignal): Promise<Checkpoint> {
    if (!reason.trim()) throw new HitlError("invalid", "abort needs a reason: say why the run gave up");
    return this.publish(run, "ABORT", reason, signal);
  }

  private publish(run: string, event: string, reason: string | undefined, signal?: AbortSignal): Promise<Checkpoint> {
    const body: Record<string, unknown> = { schema: 1, event, run_id: run, stack: [] };
    if (reason) body.reason = reason;
    return this.call<Checkpoint>({ method: "POST", path: "/api/topics/loop:current", body, replay: false, signal });
  }

  // ---- events ----

  /**
   * The SSE stream of GET /api/events as an async iterator. A cut stream
   * (a restart, a failover) is resumed with Last-Event-ID, so no event is
   * missed or repeated. End it with `break` or the signal.
   */
  async *events(opts: EventsOptions = {}): AsyncGenerator<HitlEvent> {
    yield* eventStream(this.transport, opts);
  }

  // ---- identity ----

  /** GET /api/whoami: who the token is. */
  whoami(signal?: AbortSignal): Promise<Whoami> {
    if (!this.whoamiCache) {
      this.whoamiCache = this.call<Whoami>({ method: "GET", path: "/api/whoami", replay: true, signal });
      this.whoamiCache.catch(() => { this.whoamiCache = undefined; });
    }
    return this.whoamiCache;
  }

  /** The run a call without one goes to: `ts-$USER@PRINCIPAL`, which no other principal can start. */
  async defaultRun(signal?: AbortSignal): Promise<string> {
    if (this.runName) return this.runName;
    const me = await this.whoami(signal);
    const user = (env("USER") || env("USERNAME") || "agent").replace(/[^A-Za-z0-9._-]/g, "_");
    this.runName = `ts-${user}@${me.principal}`;
    return this.runName;
  }

  // ---- internals ----

  /** Creates a question in run (POST /api/jobs/{id}/questions). */
  private async create(run: string, body: Record<string, unknown>, key: string | undefined, signal?: AbortSignal): Promise<Question> {
    const k = key ?? (this.urls.length > 1 ? `failover:${randomId()}` : undefined);
    if (k) body.idempotencyKey = k;
    const r = await this.call<{ questionId: string; question?: Question }>({ method: "POST", path: `/api/jobs/${seg("run id", run)}/questions`, body, replay: k !== undefined, signal });
    return r.question ?? (await this.question(r.questionId, signal));
  }

  /**
   * Long-polls question q until it is settled, then takes its outcome
   * (POST …/receive). Outlives restarts (retries with backoff) and
   * failovers; a sensitive answer lost to a restart is asked again and
   * waited for.
   */
  private async settle(q: Question, signal?: AbortSignal): Promise<Question> {
    for (;;) {
      if (q.status === "pending") q = await this.longPoll(q.id, signal);
      const got = await this.transport.retrying(() => this.call<{ question?: Question } & Partial<Question>>({ method: "POST", path: `/api/questions/${seg("question id", q.id)}/receive`, replay: true, signal }), signal);
      const taken = unwrapQuestion(got);
      if (taken.status === "pending") { q = taken; continue; }
      return taken;
    }
  }

  private async longPoll(id: string, signal?: AbortSignal): Promise<Question> {
    const t = this.transport;
    const backoff = t.backoff();
    for (;;) {
      const start = Date.now();
      let q: Question;
      try {
        q = await this.question2(id, `${this.pollWait}s`, signal);
      } catch (e) {
        if (signal?.aborted) throw e;
        if (errorCode(e) === "too_many_streams") {
          await t.sleep(Math.max((e as HitlError).retryAfter ?? 1, 1) * 1000, signal);
          continue;
        }
        if (!retryable(e)) throw e;
        await t.sleep(backoff.next(), signal);
        continue;
      }
      if (q.status !== "pending") return q;
      if (Date.now() - start >= (this.pollWait * 1000) / 2) { backoff.reset(); continue; }
      // Pending well before the wait elapsed: the service is shutting down or caps waits: back off.
      await t.sleep(backoff.next(), signal);
    }
  }

  private async question2(id: string, wait: string, signal?: AbortSignal): Promise<Question> {
    const r = await this.call<{ question?: Question } & Partial<Question>>({ method: "GET", path: `/api/questions/${seg("question id", id)}`, query: { wait }, replay: true, signal });
    return unwrapQuestion(r);
  }

  /**
   * One raw API call (for endpoints without a method here): sent to the
   * replica in use and, when it is not answering, to the next ones as far
   * as the request may be repeated (`replay`); a 429 rate_limited waits
   * Retry-After and sends it again. Returns the decoded JSON.
   */
  call<T>(a: ApiCall): Promise<T> {
    return this.transport.call<T>(a);
  }
}
