// What every adapter does with a tool call: show people the tool's name,
// its exact input and the agent's own description, in the agent's run;
// let the policy decide first; check a person's edit against the tool's
// argument schema before the tool may use it.
import type { Client, Decision } from "./client.js";
import { HitlError } from "./errors.js";
import { validateSchema, type JSONSchema } from "./schema.js";

export type { JSONSchema } from "./schema.js";

/** A tool call an agent wants to make. */
export interface ToolCall {
  /** The tool's name, as the framework names it. */
  name: string;
  /** Its input, exactly as the tool will receive it. */
  input: unknown;
  /** What the agent (or the framework's prompt) says about the call. */
  description?: string;
  /** The tool's JSON schema for its arguments, when the framework gives one: edits are checked against it. */
  schema?: JSONSchema;
  /** false: the framework cannot run the tool with other input; an edit is refused. */
  editable?: boolean;
}

export interface ToolOptions {
  /** The run the approvals go to (default: the client's). */
  run?: string;
  /** The policy's operation type of a tool (default: its name, lowercased, e.g. `send_email`). */
  opType?: string | ((tool: string) => string);
  /** Seconds each approval waits for a person. */
  timeout?: number;
  risk?: "low" | "medium" | "high" | "critical";
  signal?: AbortSignal;
}

/** How many times a person is asked again after an edit that cannot be used. */
const maxEditRounds = 3;

/**
 * hitl's own operation types: a tool named like one gets `tool_` in front, so
 * its JSON input is never decided as a command line, a path or an agent to start.
 */
const builtinOpTypes = new Set(["shell", "file_read", "file_write", "file_delete", "api_call", "spawn_agent", "custom"]);

/**
 * The policy's operation type for tool name: lowercase letters, digits and
 * `_.:-`, starting with a letter (`tool_` in front of one of hitl's own types).
 * Its JSON input is the resource, which a person may edit: hitl lets any
 * operation type with a resource be edited (`spawn_agent` aside).
 */
export function opTypeOf(name: string, opts: Pick<ToolOptions, "opType"> = {}): string {
  if (typeof opts.opType === "string") return opts.opType;
  if (typeof opts.opType === "function") return opts.opType(name);
  let t = name.toLowerCase().replace(/[^a-z0-9_.:-]+/g, "_");
  if (!/^[a-z]/.test(t) || builtinOpTypes.has(t)) t = "tool_" + t;
  return t.slice(0, 64);
}

/** The operation people see: the agent's description, else "Call the tool NAME". */
export function actionOf(call: ToolCall): string {
  const d = call.description?.trim();
  return d ? `${call.name}: ${d}` : `Call the tool ${call.name}`;
}

/** The resource of a tool call: its input as JSON, what people see and may edit. */
export function resourceOf(input: unknown): string {
  return JSON.stringify(input ?? {});
}

/** What the policy decides about call, without asking anyone. */
export async function checkTool(client: Client, call: ToolCall, opts: ToolOptions = {}): Promise<"allow" | "ask" | "deny"> {
  const d = await client.check(opTypeOf(call.name, opts), resourceOf(call.input), { operation: actionOf(call), risk: opts.risk, signal: opts.signal });
  return d.decision;
}

/** A decision on a tool call, with the input to run it with. */
export interface ToolDecision extends Decision {
  /** The input the tool runs with (the edited one when edited). */
  input?: unknown;
}

/**
 * Asks hitl about a tool call: the policy first, then a person. An edit is
 * parsed as JSON and checked against the tool's schema; one that cannot be
 * used is refused and the person is asked again, told why (at most 3
 * times, then the call is denied with that reason).
 */
export async function approveTool(client: Client, call: ToolCall, opts: ToolOptions = {}): Promise<ToolDecision> {
  let why = "";
  for (let round = 0; ; round++) {
    const reason = why ? `Your edit was refused: ${why}. Approve the original, edit it again, or deny.` : undefined;
    const d = await client.requestApproval(actionOf(call), {
      opType: opTypeOf(call.name, opts), input: call.input ?? {}, reason, risk: opts.risk, run: opts.run, timeout: opts.timeout, signal: opts.signal,
      noEdit: call.editable === false,
    }).catch((e: unknown) => {
      // An edit that is not JSON at all: refuse it like any other bad edit.
      if (e instanceof HitlError && e.code === "invalid_edit") return { outcome: "edited", editedInput: undefined, message: undefined, by: undefined, invalid: e.message } as Decision & { invalid: string };
      throw e;
    });
    if (d.outcome !== "edited") return { ...d, input: d.outcome === "approved" ? call.input : undefined };
    why = (d as { invalid?: string }).invalid ?? editProblem(call, d.editedInput) ?? "";
    if (!why) return { ...d, input: d.editedInput };
    if (round + 1 >= maxEditRounds) {
      return { ...d, outcome: "denied", reason: `the edit of ${call.name} was refused ${maxEditRounds} times: ${why}`, input: undefined };
    }
  }
}

/** Why an edited input cannot be used, or undefined when it can. */
export function editProblem(call: ToolCall, edited: unknown): string | undefined {
  if (call.editable === false) return `${call.name}'s input cannot be edited here: the framework runs a tool only with the input the model gave`;
  if (edited === null || typeof edited !== "object" || Array.isArray(edited)) return "the edited input must be a JSON object of the tool's arguments";
  if (!call.schema) return undefined;
  const errs = validateSchema(call.schema, edited);
  return errs.length ? `it does not match ${call.name}'s arguments: ${errs.slice(0, 5).join("; ")}` : undefined;
}

/** What the model reads when a person replied in words instead of approving (as hitl's Claude Code hook says it). */
export function replyMessage(d: Pick<Decision, "by" | "message">): string {
  return `Not approved: ${d.by || "the approver"} replied in hitl instead: ${d.message ?? ""}`;
}

/** A text question that stands in for a tool (LangGraph's respond): the person's answer is the tool's result. */
export async function respondTool(client: Client, call: ToolCall, opts: ToolOptions = {}): Promise<string> {
  const args = call.input && typeof call.input === "object" ? (call.input as Record<string, unknown>) : {};
  const q = typeof args.question === "string" ? args.question : typeof args.prompt === "string" ? args.prompt : actionOf(call);
  const answer = await client.ask(q, {
    run: opts.run, timeout: opts.timeout, signal: opts.signal,
    context: `The agent's tool ${call.name} waits for your answer. Input: ${resourceOf(call.input)}`,
  });
  return Array.isArray(answer) ? answer.join(", ") : String(answer);
}
