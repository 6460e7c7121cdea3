// What every adapter does with a tool call: show people the tool's name,
// its exact input and the agent's own description, in the agent's run;
// let the policy decide first; check a person's edit against the tool's
// argument schema before the tool may use it.
import type { Client, Decision } from "./client.js";
import { absolute, writeDiff, type FileDiff } from "./diff.js";
import { HitlError } from "./errors.js";
import { validateSchema, type JSONSchema } from "./schema.js";
import type { ApprovalOutcome } from "./types.js";

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
  /**
   * Tools that write a whole file: tool name → its path and content
   * arguments (null: the tool is not a file write). Without an entry, a
   * tool named for writing (write, create, save; not append, insert,
   * patch, edit, replace, delete, remove) whose arguments name a path and
   * its content is one (fileWriteOf).
   */
  fileWrites?: Record<string, FileWrite | null>;
  /** The agent's working directory: where a file write's relative path is (default: this process's). */
  cwd?: string;
}

/** A file-writing tool's path and content arguments. */
export interface FileWrite { path: string; content: string }

const pathFields = ["path", "file_path", "filepath", "filename", "file"];
const contentFields = ["content", "contents", "text"];

/**
 * The path and content arguments of a call that writes a whole file: as
 * declared, else a tool named for writing whose arguments name a path
 * (path, file_path, filepath, filename, file) and its content (content,
 * contents, text). A tool that adds to a file (append, insert, patch,
 * edit, replace) is not one: a whole-file diff would misstate it.
 */
export function fileWriteOf(name: string, input: unknown, declared?: Record<string, FileWrite | null>): FileWrite | undefined {
  if (!input || typeof input !== "object" || Array.isArray(input)) return undefined;
  const args = input as Record<string, unknown>;
  if (declared && name in declared) {
    const fw = declared[name];
    return fw && typeof args[fw.path] === "string" && typeof args[fw.content] === "string" ? fw : undefined;
  }
  if (!/write|create|save/i.test(name) || /append|insert|patch|edit|replace|delete|remove/i.test(name)) return undefined;
  const path = pathFields.find((k) => typeof args[k] === "string" && args[k] !== "");
  const content = contentFields.find((k) => typeof args[k] === "string");
  return path && content ? { path, content } : undefined;
}

/** The operation sent for a tool call. */
interface ToolOperation {
  opType: string;
  resource: string;
  /** The call's input when the resource is its JSON (an edit comes back parsed). */
  input?: unknown;
  context?: string;
  /** A file write: its path argument, its absolute path, its diff and the working directory. */
  file?: { field: string; path: string; cwd: string; diffs: FileDiff[] };
}

/**
 * The operation of a tool call: a call that writes a whole file
 * (fileWriteOf) is a `file_write` of its absolute path (or the type
 * opts.opType gives it) with the diff of the file it would write,
 * computed here, on the agent's machine, as hitl's Claude Code hook does;
 * the policy decides it by its path like every file write. Any other call
 * is its tool's own type with its input as JSON.
 */
export function operationOfTool(call: ToolCall, opts: Pick<ToolOptions, "opType" | "fileWrites" | "cwd"> = {}): ToolOperation {
  const fw = fileWriteOf(call.name, call.input, opts.fileWrites);
  if (!fw) return { opType: opTypeOf(call.name, opts), resource: resourceOf(call.input), input: call.input ?? {} };
  const args = call.input as Record<string, unknown>;
  const cwd = opts.cwd ?? process.cwd();
  const path = absolute(String(args[fw.path]), cwd);
  const others = Object.fromEntries(Object.entries(args).filter(([k]) => k !== fw.path && k !== fw.content));
  return {
    opType: opts.opType ? opTypeOf(call.name, opts) : "file_write", resource: path,
    context: `tool ${call.name}` + (Object.keys(others).length ? `, with ${JSON.stringify(others)}` : ""),
    file: { field: fw.path, path, cwd, diffs: [writeDiff(path, String(args[fw.content]))] },
  };
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
  const fw = fileWriteOf(call.name, call.input, opts.fileWrites);
  const [opType, resource] = fw
    ? [opts.opType ? opTypeOf(call.name, opts) : "file_write", absolute(String((call.input as Record<string, unknown>)[fw.path]), opts.cwd)]
    : [opTypeOf(call.name, opts), resourceOf(call.input)];
  const d = await client.check(opType, resource, { operation: actionOf(call), risk: opts.risk, signal: opts.signal });
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
 * times, then the call is denied with that reason). A file write moved to
 * another path is not run on trust: the same write at the new path is
 * asked again, with the diff of the file there, and runs only when that
 * is approved (outcome "edited", with the new input).
 */
export async function approveTool(client: Client, call: ToolCall, opts: ToolOptions = {}): Promise<ToolDecision> {
  let why = "";
  let moved = "";
  let cur = call;
  for (let round = 0; ; round++) {
    const op = operationOfTool(cur, opts);
    const reason = why ? `Your edit was refused: ${why}. Approve the original, edit it again, or deny.` : moved || undefined;
    const d = await requestOperation(client, actionOf(call), op, reason, call.editable === false, opts).catch((e: unknown) => {
      // An edit that is not JSON at all: refuse it like any other bad edit.
      if (e instanceof HitlError && e.code === "invalid_edit") return { outcome: "edited", editedInput: undefined, message: undefined, by: undefined, invalid: e.message } as Decision & { invalid: string };
      throw e;
    });
    if (d.outcome === "edited" && op.file && typeof d.editedInput === "string") {
      if (round + 1 >= maxEditRounds) return { ...d, outcome: "denied", reason: `the path of ${call.name} was changed ${maxEditRounds} times without an approval of the last change`, input: undefined };
      const to = absolute(d.editedInput, op.file.cwd);
      moved = `${d.by ?? "the approver"} moved this write from ${op.file.path} to ${to}: this is the change at ${to}. Approve it, edit the path again, or deny.`;
      cur = { ...cur, input: { ...(cur.input as Record<string, unknown>), [op.file.field]: d.editedInput } };
      why = "";
      continue;
    }
    if (d.outcome === "approved" && cur !== call) return { ...d, outcome: "edited", editedInput: cur.input, input: cur.input };
    if (d.outcome !== "edited") return { ...d, input: d.outcome === "approved" ? call.input : undefined };
    why = (d as { invalid?: string }).invalid ?? editProblem(call, d.editedInput) ?? "";
    if (!why) return { ...d, input: d.editedInput };
    if (round + 1 >= maxEditRounds) {
      return { ...d, outcome: "denied", reason: `the edit of ${call.name} was refused ${maxEditRounds} times: ${why}`, input: undefined };
    }
  }
}

/**
 * POSTs op as an approval and waits for its decision. A file write's diffs
 * and working directory are sent as the approvals API takes them (the
 * client's requestApproval has no option for them).
 */
async function requestOperation(client: Client, action: string, op: ToolOperation, reason: string | undefined, noEdit: boolean, opts: ToolOptions): Promise<Decision> {
  const context = [reason, op.context].filter(Boolean).join("\n") || undefined;
  if (!op.file) {
    return client.requestApproval(action, { opType: op.opType, input: op.input, reason: context, risk: opts.risk, run: opts.run, timeout: opts.timeout, signal: opts.signal, noEdit });
  }
  const body: Record<string, unknown> = { opType: op.opType, operation: action, resource: op.resource, cwd: op.file.cwd, diffs: op.file.diffs };
  if (context) body.context = context;
  if (opts.risk) body.risk = opts.risk;
  if (noEdit) body.noEdit = true;
  body.runId = opts.run ?? (await client.defaultRun(opts.signal));
  if (opts.timeout !== undefined) body.timeoutMinutes = opts.timeout / 60;
  const res = await client.call<ApprovalOutcome>({ method: "POST", path: "/api/approvals", body, replay: false, signal: opts.signal });
  if (res.decision === "allow") return { outcome: "approved", by: "policy", rule: res.rule };
  if (res.decision === "deny") return { outcome: "denied", by: "policy", rule: res.rule, reason: `denied by policy rule ${res.rule}` };
  if (!res.questionId) throw new HitlError("internal", "the service asked without a question to wait on");
  return client.awaitApproval(res.questionId, { resource: op.resource, rule: res.rule, question: res.question, signal: opts.signal });
}

/** What the model reads when a person changed its call before it ran (the tool ran with `ran`). */
export function editNote(tool: string, by: string | undefined, ran: unknown): string {
  return `Note: ${by || "the approver"} changed the input of this ${tool} call in hitl before it ran; what ran is not what you asked for. It ran with: ${typeof ran === "string" ? ran : JSON.stringify(ran)}`;
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
