// @hitl/client/langgraph: LangGraph.js interrupts answered through hitl —
// LangChain's humanInTheLoopMiddleware (actionRequests + reviewConfigs)
// and plain interrupt() questions.
//
//   const agent = createAgent({ model, tools, checkpointer,
//     middleware: [humanInTheLoopMiddleware({ interruptOn: { send_email: { allowedDecisions: ["approve", "edit", "reject"], when: interruptWhen(client) } } })] });
//   const result = await run(agent, { messages: [...] }, { client, notes, config: { configurable: { thread_id: "t1" } } });
//
// With `const notes = new EditNotes()` and `await notes.middleware()` in
// the agent's middleware, the result of a call a person changed tells the
// model so (langchain's middleware runs the edited call as if the model
// had made it).
import type { Client } from "./client.js";
import { HitlError } from "./errors.js";
import { approveTool, checkTool, editNote, replyMessage, respondTool, type JSONSchema, type ToolOptions } from "./tool.js";

export type DecisionType = "approve" | "edit" | "reject" | "respond";

export interface ActionRequest { name: string; args: Record<string, unknown>; description?: string }
export interface ReviewConfig { actionName: string; allowedDecisions: DecisionType[]; argsSchema?: Record<string, unknown> }
/** The value humanInTheLoopMiddleware interrupts with. */
export interface HITLRequest { actionRequests: ActionRequest[]; reviewConfigs: ReviewConfig[] }

export type HITLDecision =
  | { type: "approve" }
  | { type: "edit"; editedAction: { name: string; args: Record<string, unknown> } }
  | { type: "reject"; message?: string }
  | { type: "respond"; message: string };

/** A plain interrupt() question: a string, or {question, options}. */
export interface QuestionInterrupt { question: string; options?: string[]; multi?: boolean }

export interface LangGraphOptions extends ToolOptions {
  client: Client;
  /** Where an edited call's note waits for its result (see EditNotes). */
  notes?: EditNotes;
}

/** JSON with sorted keys: the same arguments, however ordered, read the same. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(",")}}`;
  return JSON.stringify(v) ?? "null";
}

/**
 * Tells the model when a person changed a tool call before it ran:
 * resolve records each edited call, and the middleware (add
 * `await notes.middleware()` to createAgent's middleware) puts a note —
 * who changed it and what ran — before that call's result, so the
 * model's history matches what ran.
 */
export class EditNotes {
  private readonly notes = new Map<string, string>();

  /** Records the note for the call name(args) about to run. */
  record(name: string, args: unknown, note: string): void {
    this.notes.set(`${name}\u0000${canonical(args)}`, note);
  }

  /** The note for the call name(args), once. */
  take(name: string, args: unknown): string | undefined {
    const k = `${name}\u0000${canonical(args)}`;
    const note = this.notes.get(k);
    this.notes.delete(k);
    return note;
  }

  /** The langchain middleware (createMiddleware) that puts each note before its call's result. */
  async middleware(): Promise<unknown> {
    const { createMiddleware } = (await import("langchain")) as unknown as { createMiddleware: (c: Record<string, unknown>) => unknown };
    type Req = { toolCall: { name: string; args: unknown } };
    return createMiddleware({
      name: "HitlEditNotes",
      wrapToolCall: async (request: Req, handler: (r: Req) => Promise<unknown>) => {
        const res = await handler(request);
        const note = this.take(request.toolCall.name, request.toolCall.args);
        const msg = res as { content?: unknown } | undefined;
        if (note && msg && typeof msg === "object" && "content" in msg) {
          msg.content = typeof msg.content === "string" ? `${note}\n\n${msg.content}` : [{ type: "text", text: note }, ...(Array.isArray(msg.content) ? msg.content : [])];
        }
        return res;
      },
    });
  }
}

/** Whether v is the middleware's request. */
export function isHITLRequest(v: unknown): v is HITLRequest {
  return !!v && typeof v === "object" && Array.isArray((v as HITLRequest).actionRequests);
}

/**
 * The `when` of an interruptOn entry: hitl's policy decides each call
 * (`allow`: the tool runs without an interrupt; `ask` and `deny`: an
 * interrupt that resolve answers — a person, or the policy's denial).
 */
export function interruptWhen(client: Client, opts: ToolOptions = {}): (req: { toolCall: { name: string; args: unknown } }) => Promise<boolean> {
  return async ({ toolCall }) => (await checkTool(client, { name: toolCall.name, input: toolCall.args }, opts)) !== "allow";
}

/**
 * Answers an interrupt's value through hitl. A humanInTheLoopMiddleware
 * request gets `{decisions}` in order — one hitl approval per action,
 * offering only what its allowedDecisions allow: approve; edit (the edited
 * args checked against argsSchema); reject with the person's reason;
 * respond (an action that allows only respond is a question whose answer
 * is the tool's result). A plain interrupt() with a string or
 * `{question, options}` is asked, and the answer is returned.
 */
export async function resolve(value: unknown, opts: LangGraphOptions): Promise<{ decisions: HITLDecision[] } | string | string[] | boolean> {
  if (isHITLRequest(value)) return { decisions: await decide(value, opts) };
  if (typeof value === "string") return opts.client.ask(value, { run: opts.run, timeout: opts.timeout, signal: opts.signal });
  if (value && typeof value === "object" && typeof (value as QuestionInterrupt).question === "string") {
    const q = value as QuestionInterrupt;
    return opts.client.ask(q.question, { options: q.options, multi: q.multi, run: opts.run, timeout: opts.timeout, signal: opts.signal });
  }
  throw new HitlError("invalid", `hitl cannot answer this interrupt: ${JSON.stringify(value)?.slice(0, 200)} (want a humanInTheLoopMiddleware request, a string or {question, options})`);
}

async function decide(req: HITLRequest, opts: LangGraphOptions): Promise<HITLDecision[]> {
  const out: HITLDecision[] = [];
  for (const [i, action] of req.actionRequests.entries()) {
    const cfg = req.reviewConfigs.find((c) => c.actionName === action.name) ?? req.reviewConfigs[i];
    const allowed = new Set<DecisionType>(cfg?.allowedDecisions ?? ["approve", "reject"]);
    // An action whose review config does not allow edit cannot take one: none is offered (noEdit).
    const call = { name: action.name, input: action.args, description: action.description, schema: cfg?.argsSchema as JSONSchema | undefined, editable: allowed.has("edit") };
    if (allowed.has("respond") && !allowed.has("approve") && !allowed.has("edit")) {
      out.push({ type: "respond", message: await respondTool(opts.client, call, opts) });
      continue;
    }
    const d = await approveTool(opts.client, call, opts);
    switch (d.outcome) {
      case "approved":
        if (allowed.has("approve")) { out.push({ type: "approve" }); break; }
        if (allowed.has("edit")) { out.push({ type: "edit", editedAction: { name: action.name, args: action.args } }); break; }
        throw new HitlError("invalid", `${action.name} was approved, but its review config allows only ${[...allowed].join(", ")}`);
      case "edited":
        opts.notes?.record(action.name, d.input, editNote(action.name, d.by, d.input));
        out.push({ type: "edit", editedAction: { name: action.name, args: d.input as Record<string, unknown> } });
        break;
      case "responded":
        // The person's text is the tool's answer where the tool takes one, else why it was rejected.
        if (allowed.has("respond")) { out.push({ type: "respond", message: d.message ?? "" }); break; }
        if (!allowed.has("reject")) throw new HitlError("refused", `${replyMessage(d)} — and its review config allows neither respond nor reject`);
        out.push({ type: "reject", message: replyMessage(d) });
        break;
      default: {
        const message = d.outcome === "timed_out"
          ? `Nobody approved ${action.name} in time; it was not run.`
          : d.reason ? `${action.name} was denied: ${d.reason}` : `${action.name} was denied by ${d.by ?? "a person"}`;
        if (!allowed.has("reject")) throw new HitlError("refused", `${message} — and its review config does not allow reject`);
        out.push({ type: "reject", message });
      }
    }
  }
  return out;
}

interface GraphLike { invoke(input: unknown, config?: unknown): Promise<unknown> }
interface InterruptLike { id?: string; value?: unknown }

/**
 * Invokes graph, answers every `__interrupt__` through hitl and resumes
 * with `Command({resume})`, until the graph ends. config must name a
 * thread (`configurable.thread_id`) and the graph have a checkpointer.
 */
export async function run<T = Record<string, unknown>>(graph: GraphLike, input: unknown, opts: LangGraphOptions & { config?: Record<string, unknown>; maxRounds?: number }): Promise<T> {
  const { Command } = (await import("@langchain/langgraph")) as unknown as { Command: new (a: { resume: unknown }) => unknown };
  let result = (await graph.invoke(input, opts.config)) as Record<string, unknown>;
  for (let round = 0; ; round++) {
    const pending = (result?.__interrupt__ as InterruptLike[] | undefined) ?? [];
    if (pending.length === 0) return result as T;
    if (round >= (opts.maxRounds ?? 100)) throw new HitlError("invalid", `the graph still interrupts after ${round} rounds`);
    let resume: unknown;
    if (pending.length === 1) {
      resume = await resolve(pending[0].value, opts);
    } else {
      const byId: Record<string, unknown> = {};
      for (const it of pending) {
        if (!it.id) throw new HitlError("invalid", "several interrupts without ids cannot be resumed at once");
        byId[it.id] = await resolve(it.value, opts);
      }
      resume = byId;
    }
    result = (await graph.invoke(new Command({ resume }), opts.config)) as Record<string, unknown>;
  }
}
