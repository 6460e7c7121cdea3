/**
 * What the client puts on the wire and how it reads what comes back: path
 * segments, operation bodies, the agent's home, and a settled question's
 * outcome as a value, a Decision or a HitlError. Pure: no I/O.
 */
import type { ApprovalOptions, Decision } from "../client.js";
import type { PolicyDecision, Question, Response } from "../types.js";
import { HitlError } from "./errors.js";
import { env } from "./transport.js";

/** v as one path segment, refusing what would change the path. */
export function seg(what: string, v: string): string {
  if (!v || v === "." || v === "..") throw new HitlError("invalid", `${what} ${JSON.stringify(v)} is invalid`);
  return encodeURIComponent(v);
}

/** The question of an answer that is one, or wraps one in `question`. */
export function unwrapQuestion(r: { question?: Question } & Partial<Question>): Question {
  if (r && typeof r === "object" && "id" in r && typeof r.id === "string") return r as Question;
  if (r?.question) return r.question;
  throw new HitlError("unavailable", "the service answered without a question");
}

/** The approval values that are a person's reply in words (docs/reply-and-batch.md). */
const replyValues = new Set(["reply", "replied", "respond"]);

/** Throws the error a settled question's outcome is, or returns it. */
export function outcome(q: Question): Question {
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

/** The answer's value as ask returns it. */
export function valueOf(r: Response | undefined): string | string[] | boolean {
  if (!r) throw new HitlError("internal", "the question was settled without an answer");
  if (r.redacted) throw new HitlError("unavailable", "the answer was redacted before it reached this client");
  const v = r.value;
  if (typeof v === "boolean" || typeof v === "string") return v;
  if (Array.isArray(v)) return v.map(String);
  return v == null ? "" : String(v);
}

/** The Decision a settled approval q is (throws cancelled, invalid_edit). */
export function decisionOf(q: Question, opts: { input?: unknown; resource?: string; rule?: string }): Decision {
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

/** The operation types whose resource may name paths: they go with the agent's home. */
const pathOps = new Set(["shell", "file_read", "file_write", "file_delete"]);

/** The home a client sends: home given (absolute), else HOME when absolute, else none. */
export function agentHome(home: string | undefined): string | undefined {
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

/** The body of POST /api/approvals and /api/policy/check for an operation. */
export function operationBody(action: string, opts: ApprovalOptions, home?: string): Record<string, unknown> {
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

/** ": part, part" naming the parts of a policy decision that denied, or "". */
export function explain(d: PolicyDecision): string {
  const denied = d.parts?.filter((p) => p.decision === "deny").map((p) => p.text) ?? [];
  return denied.length ? `: ${denied.join(", ")}` : "";
}

/** A signal that aborts with outer or after seconds (none: outer as it is). */
export function withTimeout(outer: AbortSignal | undefined, seconds: number | undefined): { signal?: AbortSignal; done: () => void } {
  if (seconds === undefined) return { signal: outer, done: () => {} };
  const ctl = new AbortController();
  const t = setTimeout(() => ctl.abort(new HitlError("deadline_exceeded", `the wait ran out after ${seconds}s`)), seconds * 1000);
  const onAbort = () => ctl.abort(outer!.reason);
  outer?.addEventListener("abort", onAbort, { once: true });
  if (outer?.aborted) ctl.abort(outer.reason);
  return { signal: ctl.signal, done: () => { clearTimeout(t); outer?.removeEventListener("abort", onAbort); } };
}
