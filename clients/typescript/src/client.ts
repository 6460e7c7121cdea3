import { HitlError, codeOfStatus, errorCode } from "./errors.js";
import type {
  ApprovalOutcome, Checkpoint, HitlEvent, Option, PolicyDecision, Question, QuestionContext, Response, Whoami,
} from "./types.js";

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

type Body = Record<string, unknown> | undefined;

/** One raw API call (Client.call). */
export interface ApiCall {
  method: string;
  path: string;
  query?: Record<string, string>;
  body?: Body;
  /** May be sent again at the next replica after it may have reached a failed one. */
  replay: boolean;
  signal?: AbortSignal;
}

/** A failure of one replica: its connection refused or cut, or 502/503/504. */
class ReplicaDown extends Error {
  constructor(readonly err: HitlError, readonly sent: boolean) { super(err.message); }
}

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const t = setTimeout(() => { signal?.removeEventListener("abort", onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(t); reject(abortError(signal!)); };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("aborted", "AbortError");
}

function env(name: string): string | undefined {
  const p = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return p?.env?.[name];
}

function randomId(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * The hitl HTTP API as a typed client, with the Go SDK's retries and
 * failover: a wait outlives a restart of the service and moves to the next
 * replica; a 429 waits Retry-After and tries again.
 */
export class Client {
  readonly urls: string[];
  readonly token?: string;
  private cur = 0;
  private runName?: string;
  private readonly fetchFn: typeof fetch;
  private readonly minBackoff: number;
  private readonly maxBackoff: number;
  private readonly pollWait: number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private whoamiCache?: Promise<Whoami>;
  /** The agent's home sent with shell and file operations (undefined: none). */
  readonly home?: string;

  constructor(opts: ClientOptions = {}) {
    const list = Array.isArray(opts.url) ? opts.url.join(",") : (opts.url ?? env("HITL_URL") ?? "http://127.0.0.1:7070");
    this.urls = list.split(",").map((u) => u.trim().replace(/\/+$/, "")).filter((u) => u !== "");
    if (this.urls.length === 0) throw new HitlError("invalid", "no hitl URL: set HITL_URL or pass url");
    for (const u of this.urls) {
      if (!/^https?:\/\/[^/]/.test(u)) throw new HitlError("invalid", `hitl URL ${JSON.stringify(u)} is not an http(s) URL`);
    }
    this.token = opts.token ?? env("HITL_TOKEN") ?? undefined;
    if (this.token === "") this.token = undefined;
    this.runName = opts.run;
    this.fetchFn = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.minBackoff = opts.minBackoffMs ?? 100;
    this.maxBackoff = Math.max(opts.maxBackoffMs ?? 5000, this.minBackoff);
    this.pollWait = opts.pollWaitSeconds ?? 60;
    this.sleep = opts.sleep ?? defaultSleep;
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
      return await this.settle(await this.retrying(() => this.question(id, signal), signal), signal);
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
      q = await this.settle(opts.question?.status === "pending" || !opts.question ? await this.retrying(() => this.question(questionId, signal), signal) : opts.question, signal);
    } catch (e) {
      if (opts.timeout !== undefined && signal?.aborted && !opts.signal?.aborted) {
        throw new HitlError("deadline_exceeded", `approval ${questionId} is still pending after ${opts.timeout}s; wait again with awaitApproval(${JSON.stringify(questionId)})`);
      }
      throw e;
    } finally {
      done();
    }
    const d: Decision = { outcome: "timed_out", by: q.respondedBy, rule: opts.rule ?? q.rule, questionId: q.id, question: q };
    if (q.status === "cancelled") outcome(q); // throws cancelled
    if (q.status === "timeout") return d;
    const r = q.response;
    if (!r) throw new HitlError("internal", `approval ${q.id} is ${q.status} without a response`);
    if (replyValues.has(String(r.value ?? "").toLowerCase())) return { ...d, outcome: "responded", message: r.text ?? "" };
    if (r.value !== "approve") return { ...d, outcome: "denied", reason: r.text || undefined };
    const resource = opts.resource ?? q.operation?.resource;
    if (r.edited && r.edited !== resource) {
      let edited: unknown = r.edited;
      if (opts.input !== undefined) {
        try {
          edited = JSON.parse(r.edited);
        } catch (e) {
          throw new HitlError("invalid_edit", `${q.respondedBy ?? "the approver"} approved ${q.id} with an edit that is not JSON: ${(e as Error).message}`);
        }
      }
      return { ...d, outcome: "edited", message: r.text || undefined, editedInput: edited };
    }
    return { ...d, outcome: "approved", message: r.text || undefined, ...(r.always ? { always: true } : {}) };
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
    let backoff = this.minBackoff;
    for (;;) {
      let cp: Checkpoint;
      try {
        cp = await this.call<Checkpoint>({ method: "POST", path: `/api/runs/${seg("run id", run)}/checkpoint`, query: { wait: `${this.pollWait}s` }, body, replay: true, signal: opts.signal });
      } catch (e) {
        if (!retryable(e) || opts.signal?.aborted) throw e;
        await this.sleep(backoff, opts.signal);
        backoff = Math.min(backoff * 2, this.maxBackoff);
        continue;
      }
      backoff = this.minBackoff;
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
    let last = opts.after;
    let backoff = this.minBackoff;
    for (;;) {
      const ctl = new AbortController();
      const onAbort = () => ctl.abort(opts.signal?.reason);
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      try {
        const headers = this.headers("GET", false);
        headers["Accept"] = "text/event-stream";
        if (last !== undefined) headers["Last-Event-ID"] = last;
        const query = last !== undefined ? `?after=${encodeURIComponent(last)}` : "";
        const base = this.urls[this.cur];
        let res: globalThis.Response;
        try {
          res = await this.fetchFn(base + "/api/events" + query, { headers, signal: ctl.signal });
        } catch (e) {
          if (opts.signal?.aborted) return;
          this.failed(this.cur);
          throw new ReplicaDown(new HitlError("unavailable", `cannot reach hitl at ${base}: ${describe(e)}`), false);
        }
        if (!res.ok) {
          const err = await errorOf(res);
          if (isDown(res.status)) { this.failed(this.cur); throw new ReplicaDown(err, true); }
          if (err.code === "rate_limited" || err.code === "too_many_streams") {
            await this.sleep(Math.max(err.retryAfter ?? 1, 1) * 1000, opts.signal);
            continue;
          }
          throw err;
        }
        for await (const ev of parseSSE(res.body!)) {
          backoff = this.minBackoff; // the stream carries events: a later cut reconnects at once
          if (ev.id) last = ev.id;
          if (!ev.data) continue;
          let data: Record<string, unknown>;
          try { data = JSON.parse(ev.data); } catch { continue; }
          yield { ...data, id: ev.id ?? last ?? "", type: (data.type as string) ?? ev.event ?? "message" } as HitlEvent;
        }
      } catch (e) {
        if (opts.signal?.aborted) return;
        if (!(e instanceof ReplicaDown) && !isStreamCut(e)) throw e;
      } finally {
        opts.signal?.removeEventListener("abort", onAbort);
        ctl.abort();
      }
      try { await this.sleep(backoff, opts.signal); } catch { return; }
      backoff = Math.min(backoff * 2, this.maxBackoff);
    }
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
      const got = await this.retrying(() => this.call<{ question?: Question } & Partial<Question>>({ method: "POST", path: `/api/questions/${seg("question id", q.id)}/receive`, replay: true, signal }), signal);
      const taken = unwrapQuestion(got);
      if (taken.status === "pending") { q = taken; continue; }
      return taken;
    }
  }

  private async longPoll(id: string, signal?: AbortSignal): Promise<Question> {
    let backoff = this.minBackoff;
    for (;;) {
      const start = Date.now();
      let q: Question;
      try {
        q = await this.question2(id, `${this.pollWait}s`, signal);
      } catch (e) {
        if (signal?.aborted) throw e;
        if (errorCode(e) === "too_many_streams") {
          await this.sleep(Math.max((e as HitlError).retryAfter ?? 1, 1) * 1000, signal);
          continue;
        }
        if (!retryable(e)) throw e;
        await this.sleep(backoff, signal);
        backoff = Math.min(backoff * 2, this.maxBackoff);
        continue;
      }
      if (q.status !== "pending") return q;
      if (Date.now() - start >= (this.pollWait * 1000) / 2) { backoff = this.minBackoff; continue; }
      // Pending well before the wait elapsed: the service is shutting down or caps waits: back off.
      await this.sleep(backoff, signal);
      backoff = Math.min(backoff * 2, this.maxBackoff);
    }
  }

  private async question2(id: string, wait: string, signal?: AbortSignal): Promise<Question> {
    const r = await this.call<{ question?: Question } & Partial<Question>>({ method: "GET", path: `/api/questions/${seg("question id", id)}`, query: { wait }, replay: true, signal });
    return unwrapQuestion(r);
  }

  private async retrying<T>(f: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let backoff = this.minBackoff;
    for (;;) {
      try {
        return await f();
      } catch (e) {
        if (signal?.aborted || !retryable(e)) throw e;
        await this.sleep(backoff, signal);
        backoff = Math.min(backoff * 2, this.maxBackoff);
      }
    }
  }

  private headers(method: string, hasBody: boolean): Record<string, string> {
    const h: Record<string, string> = { Accept: "application/json" };
    if (hasBody || method !== "GET") h["Content-Type"] = "application/json";
    if (this.token) h["Authorization"] = `Bearer ${this.token}`;
    return h;
  }

  private failed(i: number): void {
    if (this.cur === i) this.cur = (i + 1) % this.urls.length;
  }

  /**
   * One raw API call (for endpoints without a method here): sent to the
   * replica in use and, when it is not answering, to the next ones as far
   * as the request may be repeated (`replay`); a 429 rate_limited waits
   * Retry-After and sends it again. Returns the decoded JSON.
   */
  async call<T>(a: ApiCall): Promise<T> {
    for (;;) {
      try {
        return await this.sendAny<T>(a);
      } catch (e) {
        if (errorCode(e) !== "rate_limited" || a.signal?.aborted) throw e;
        await this.sleep(Math.max((e as HitlError).retryAfter ?? 1, 1) * 1000, a.signal);
      }
    }
  }

  private async sendAny<T>(a: ApiCall): Promise<T> {
    const n = this.urls.length;
    const start = this.cur;
    let err: unknown;
    for (let i = 0; i < n; i++) {
      const at = (start + i) % n;
      try {
        return await this.send<T>(this.urls[at], a);
      } catch (e) {
        if (!(e instanceof ReplicaDown)) throw e;
        err = e.err;
        if (a.signal?.aborted) throw abortError(a.signal);
        this.failed(at);
        if (e.sent && !a.replay) break;
      }
    }
    throw err;
  }

  private async send<T>(base: string, a: ApiCall): Promise<T> {
    let url = base + a.path;
    if (a.query) url += "?" + new URLSearchParams(a.query).toString();
    const hasBody = a.body !== undefined;
    let res: globalThis.Response;
    try {
      res = await this.fetchFn(url, { method: a.method, headers: this.headers(a.method, hasBody), body: hasBody ? JSON.stringify(a.body) : undefined, signal: a.signal });
    } catch (e) {
      if (a.signal?.aborted) throw abortError(a.signal);
      throw new ReplicaDown(new HitlError("unavailable", `cannot reach hitl at ${base}: ${describe(e)}`, { cause: e }), !refused(e));
    }
    if (res.status >= 300) {
      const err = await errorOf(res);
      if (isDown(res.status)) throw new ReplicaDown(err, true);
      throw err;
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      if (a.signal?.aborted) throw abortError(a.signal);
      throw new ReplicaDown(new HitlError("unavailable", `reading the answer of ${a.method} ${a.path}: ${describe(e)}`, { cause: e }), true);
    }
    // Every hitl endpoint answers a 2xx with a JSON object: an empty, cut
    // or non-JSON one (a service on its way out, a proxy) is a transport
    // failure, which the request's retry rules apply to.
    let body: unknown;
    try { body = JSON.parse(text); } catch { body = undefined; }
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw new ReplicaDown(new HitlError("unavailable", `hitl answered ${a.method} ${a.path} with ${res.status} but ${text ? "not the JSON object it documents" : "an empty body"}`, { status: res.status }), true);
    }
    return body as T;
  }
}

// ---- helpers ----

function seg(what: string, v: string): string {
  if (!v || v === "." || v === "..") throw new HitlError("invalid", `${what} ${JSON.stringify(v)} is invalid`);
  return encodeURIComponent(v);
}

function isDown(status: number): boolean {
  return status === 502 || status === 503 || status === 504;
}

function retryable(e: unknown): boolean {
  const c = errorCode(e);
  return c === "unavailable" || c === "internal";
}

function describe(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
  const base = e instanceof Error ? e.message : String(e);
  return cause?.code ? `${base} (${cause.code})` : cause?.message ? `${base} (${cause.message})` : base;
}

/** A connection that was never made: the request did not reach the replica. */
function refused(e: unknown): boolean {
  const code = (e as { cause?: { code?: string } })?.cause?.code;
  return code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EHOSTUNREACH";
}

function isStreamCut(e: unknown): boolean {
  return e instanceof TypeError || (e instanceof Error && /terminated|socket|ECONNRESET|other side closed/i.test(e.message + String((e as { cause?: unknown }).cause ?? "")));
}

async function errorOf(res: globalThis.Response): Promise<HitlError> {
  let body: { code?: string; message?: string; answeredBy?: string; answeredAt?: string } = {};
  const text = await res.text().catch(() => "");
  try { body = JSON.parse(text); } catch { /* not hitl's JSON: a proxy's page */ }
  const ra = Number(res.headers.get("Retry-After"));
  return new HitlError(body.code || codeOfStatus(res.status), body.message || `hitl answered ${res.status} ${res.statusText}`.trim(), {
    status: res.status,
    retryAfter: Number.isFinite(ra) && ra > 0 ? ra : undefined,
    by: body.answeredBy,
    at: body.answeredAt,
  });
}

function unwrapQuestion(r: { question?: Question } & Partial<Question>): Question {
  if (r && typeof r === "object" && "id" in r && typeof r.id === "string") return r as Question;
  if (r?.question) return r.question;
  throw new HitlError("unavailable", "the service answered without a question");
}

/** The approval values that are a person's reply in words (docs/reply-and-batch.md). */
const replyValues = new Set(["reply", "replied", "respond"]);

/** Throws the error a settled question's outcome is, or returns it. */
function outcome(q: Question): Question {
  switch (q.status) {
    case "answered":
      return q;
    case "timeout":
      if (!q.response) throw new HitlError("timed_out", `question ${q.id} timed out without an answer`, { at: q.respondedAt });
      return q;
    case "cancelled": {
      let msg = `question ${q.id} was cancelled`;
      if (q.respondedBy) msg += ` by ${q.respondedBy}`;
      if (q.cancelReason) msg += `: ${q.cancelReason}`;
      throw new HitlError("cancelled", msg, { by: q.respondedBy, at: q.respondedAt });
    }
  }
  throw new HitlError("internal", `question ${q.id} is still ${q.status}`);
}

function valueOf(r: Response | undefined): string | string[] | boolean {
  if (!r) throw new HitlError("internal", "the question was settled without an answer");
  if (r.redacted) throw new HitlError("unavailable", "the answer was redacted before it reached this client");
  const v = r.value;
  if (typeof v === "boolean" || typeof v === "string") return v;
  if (Array.isArray(v)) return v.map(String);
  return v == null ? "" : String(v);
}

/** The operation types whose resource may name paths: they go with the agent's home. */
const pathOps = new Set(["shell", "file_read", "file_write", "file_delete"]);

/** The home a client sends: home given (absolute), else HOME when absolute, else none. */
function agentHome(home: string | undefined): string | undefined {
  if (home === undefined) {
    const h = env("HOME") ?? "";
    return h.startsWith("/") ? cleanPath(h) : undefined;
  }
  if (home === "") return undefined;
  if (!home.startsWith("/") || /[\0\n]/.test(home)) {
    throw new HitlError("invalid", `home ${JSON.stringify(home)} must be the agent's home directory as an absolute path`);
  }
  return cleanPath(home);
}

/** p without a trailing slash or doubled slashes ("/" stays "/"). */
function cleanPath(p: string): string {
  const c = p.replace(/\/+/g, "/").replace(/\/$/, "");
  return c === "" ? "/" : c;
}

function operationBody(action: string, opts: ApprovalOptions, home?: string): Record<string, unknown> {
  const body: Record<string, unknown> = { opType: opts.opType ?? "custom", operation: action };
  if (home && pathOps.has(String(body.opType))) body.home = home;
  const resource = opts.resource ?? (opts.input !== undefined ? JSON.stringify(opts.input) : undefined);
  if (resource !== undefined && resource !== "") body.resource = resource;
  if (opts.reason) body.context = opts.reason;
  if (opts.risk) body.risk = opts.risk;
  if (opts.prompted) body.prompted = true;
  if (opts.noEdit) body.noEdit = true;
  return body;
}

function explain(d: PolicyDecision): string {
  const denied = d.parts?.filter((p) => p.decision === "deny").map((p) => p.text) ?? [];
  return denied.length ? `: ${denied.join(", ")}` : "";
}

function withTimeout(outer: AbortSignal | undefined, seconds: number | undefined): { signal?: AbortSignal; done: () => void } {
  if (seconds === undefined) return { signal: outer, done: () => {} };
  const ctl = new AbortController();
  const t = setTimeout(() => ctl.abort(new HitlError("deadline_exceeded", `the wait ran out after ${seconds}s`)), seconds * 1000);
  const onAbort = () => ctl.abort(outer!.reason);
  outer?.addEventListener("abort", onAbort, { once: true });
  if (outer?.aborted) ctl.abort(outer.reason);
  return { signal: ctl.signal, done: () => { clearTimeout(t); outer?.removeEventListener("abort", onAbort); } };
}

interface SSEFrame { id?: string; event?: string; data?: string }

/** Parses a text/event-stream body into frames. */
async function* parseSSE(body: ReadableStream<Uint8Array>): AsyncGenerator<SSEFrame> {
  const dec = new TextDecoder();
  let buf = "";
  let frame: SSEFrame = {};
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf.startsWith("\r\n", nl) ? 2 : 1));
        if (line === "") {
          if (frame.data !== undefined || frame.id !== undefined) yield frame;
          frame = {};
          continue;
        }
        if (line.startsWith(":")) continue;
        const i = line.indexOf(":");
        const field = i < 0 ? line : line.slice(0, i);
        let val = i < 0 ? "" : line.slice(i + 1);
        if (val.startsWith(" ")) val = val.slice(1);
        if (field === "data") frame.data = frame.data === undefined ? val : frame.data + "\n" + val;
        else if (field === "id") frame.id = val;
        else if (field === "event") frame.event = val;
      }
    }
  } finally {
    reader.releaseLock();
  }
}
