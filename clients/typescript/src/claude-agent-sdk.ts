// @hitl/client/claude-agent-sdk: the Claude Agent SDK's permission prompt
// (canUseTool) answered through hitl.
//
//   for await (const m of query({ prompt, options: { ...permissions(client) } })) { … }
//
// permissions() gives canUseTool and the PostToolUse hook that tells the
// model when a person changed a call's input before it ran (the SDK's
// allow carries no message); canUseTool alone decides the same way without
// telling the model.
import type { Client, Decision } from "./client.js";
import { absolute, editDiff, writeDiff, type FileDiff } from "./diff.js";
import { HitlError } from "./errors.js";
import { validateSchema } from "./schema.js";
import { editNote, replyMessage } from "./tool.js";
import type { ApprovalOutcome } from "./types.js";

/** What canUseTool returns (the SDK's PermissionResult). */
export type PermissionResult =
  | { behavior: "allow"; updatedInput: Record<string, unknown> }
  | { behavior: "deny"; message: string };

export interface CanUseToolOptions {
  /** The run the approvals go to (default: the client's). */
  run?: string;
  /** Seconds each approval or question waits for a person. */
  timeout?: number;
  /** The agent's working directory (relative paths of file diffs; default: this process's). */
  cwd?: string;
  /** Where each call a person changed leaves what the model should be told, by tool use id (permissions() reads it back in a hook). */
  notes?: Map<string, string>;
}

/** How many times a person may move a Write or Edit to another path, each shown its new diff. */
const maxPathEdits = 3;

interface CallOptions { signal?: AbortSignal; decisionReason?: string; title?: string; description?: string; toolUseID?: string }

/** The tool Claude asks its user questions with: hitl asks them instead. */
export const askUserQuestionTool = "AskUserQuestion";

/** An operation as hitl's policy decides it (the mapping of hitl's Claude Code hooks). */
interface ToolOperation { opType: string; action: string; resource?: string; context?: string; editField?: string; diffs?: FileDiff[] }

/**
 * The `canUseTool` callback for the SDK's options: hitl's policy first
 * (decided as for an agent about to ask its own person: only a rule a
 * person wrote or taught allows), then a person. Approved → allow with the
 * input, edited → allow with the edited field put in the input, denied →
 * deny with the person's reason. A tool without a field hitl can put an
 * edit into is sent with noEdit (no edit is offered). Write, Edit and
 * MultiEdit carry the diff of the file they would change, computed here;
 * one moved to another path is asked again with the diff there and runs
 * only when that is approved. AskUserQuestion becomes hitl questions
 * whose answers go back in `updatedInput.answers`.
 */
export function canUseTool(client: Client, opts: CanUseToolOptions = {}): (toolName: string, input: Record<string, unknown>, options: CallOptions) => Promise<PermissionResult> {
  return async (toolName, input, options) => {
    if (toolName === askUserQuestionTool) return askUser(client, input, opts, options.signal);
    const why = options.decisionReason || options.title || "";
    let cur = input;
    let moved = "";
    let d: Decision;
    for (let round = 0; ; round++) {
      const op = operationOf(toolName, cur, opts.cwd);
      d = await approve(client, op, [moved, why, op.context].filter(Boolean).join("\n") || undefined, opts, options.signal);
      if (d.outcome !== "edited" || !op.diffs || !op.editField) break;
      if (round + 1 >= maxPathEdits) return { behavior: "deny", message: `the path of ${toolName} was changed ${maxPathEdits} times without an approval of the last change; it was not run` };
      const to = absolute(String(d.editedInput), opts.cwd);
      moved = `${d.by ?? "the approver"} moved this write from ${op.resource} to ${to}: this is the change at ${to}. Approve it, edit the path again, or deny.`;
      cur = { ...cur, [op.editField]: String(d.editedInput) };
    }
    if (d.outcome === "approved" && cur !== input) d = { ...d, outcome: "edited", editedInput: cur[operationOf(toolName, cur).editField!] };
    switch (d.outcome) {
      case "approved":
        return { behavior: "allow", updatedInput: input };
      case "edited": {
        const edited = String(d.editedInput);
        const field = operationOf(toolName, input).editField;
        if (!field) return { behavior: "deny", message: `${d.by ?? "the approver"} approved ${toolName} only with an edit hitl cannot apply to it: ${edited}` };
        const updated = { ...input, [field]: edited };
        if (opts.notes && options.toolUseID) opts.notes.set(options.toolUseID, editNote(toolName, d.by, { [field]: edited }));
        return { behavior: "allow", updatedInput: updated };
      }
      case "timed_out":
        return { behavior: "deny", message: `Nobody approved ${toolName} in time; do not run it.` };
      case "responded":
        return { behavior: "deny", message: replyMessage(d) };
      default:
        return { behavior: "deny", message: d.by === "policy" ? d.reason ?? "denied by policy" : d.reason ? `Denied by ${d.by}: ${d.reason}` : `Denied by ${d.by ?? "a person"}` };
    }
  };
}

/** A hook callback of the SDK's options (HookCallback). */
type PostToolUseHook = (input: { tool_use_id?: string; [k: string]: unknown }, toolUseID: string | undefined, options: { signal: AbortSignal }) => Promise<Record<string, unknown>>;

/**
 * `canUseTool` and `hooks` for the SDK's options (`{ ...permissions(client) }`):
 * the callback, and a PostToolUse hook that adds to the result of a call a
 * person changed what the model must know (who changed it, what ran), so
 * its history matches what ran.
 */
export function permissions(client: Client, opts: Omit<CanUseToolOptions, "notes"> = {}): {
  canUseTool: ReturnType<typeof canUseTool>;
  hooks: { PostToolUse: Array<{ hooks: PostToolUseHook[] }> };
} {
  const notes = new Map<string, string>();
  const tell: PostToolUseHook = async (input, toolUseID) => {
    const id = toolUseID ?? input.tool_use_id ?? "";
    const note = notes.get(id);
    if (note === undefined) return {};
    notes.delete(id);
    return { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: note } };
  };
  return { canUseTool: canUseTool(client, { ...opts, notes }), hooks: { PostToolUse: [{ hooks: [tell] }] } };
}

/** POSTs op as an approval (with its diffs and noEdit, which requestApproval has no option for) and waits for its decision. */
async function approve(client: Client, op: ToolOperation, context: string | undefined, opts: CanUseToolOptions, signal?: AbortSignal): Promise<Decision> {
  const body: Record<string, unknown> = { opType: op.opType, operation: op.action, prompted: true };
  if (op.resource) body.resource = op.resource;
  if (context) body.context = context;
  if (!op.editField) body.noEdit = true;
  if (op.diffs) Object.assign(body, { diffs: op.diffs, cwd: opts.cwd ?? process.cwd() });
  body.runId = opts.run ?? (await client.defaultRun(signal));
  if (opts.timeout !== undefined) body.timeoutMinutes = opts.timeout / 60;
  const res = await client.call<ApprovalOutcome>({ method: "POST", path: "/api/approvals", body, replay: false, signal });
  if (res.decision === "allow") return { outcome: "approved", by: "policy", rule: res.rule };
  if (res.decision === "deny") return { outcome: "denied", by: "policy", rule: res.rule, reason: `denied by policy rule ${res.rule}` };
  if (!res.questionId) throw new HitlError("internal", "the service asked without a question to wait on");
  return client.awaitApproval(res.questionId, { resource: op.resource, rule: res.rule, question: res.question, signal });
}

interface AskedQuestion { question: string; header?: string; options?: Array<{ label: string; description?: string }>; multiSelect?: boolean }

const askSchema = {
  type: "object", required: ["questions"],
  properties: { questions: { type: "array", items: { type: "object", required: ["question"], properties: { question: { type: "string" }, multiSelect: { type: "boolean" }, options: { type: "array", items: { type: "object", required: ["label"], properties: { label: { type: "string" } } } } } } } },
};

async function askUser(client: Client, input: Record<string, unknown>, opts: CanUseToolOptions, signal?: AbortSignal): Promise<PermissionResult> {
  const errs = validateSchema(askSchema, input);
  if (errs.length) return { behavior: "deny", message: `hitl cannot ask this AskUserQuestion: ${errs.join("; ")}` };
  const answers: Record<string, string> = {};
  for (const q of input.questions as AskedQuestion[]) {
    try {
      const a = await client.ask(q.question, {
        options: q.options?.map((o) => ({ label: o.label, value: o.label, description: o.description })),
        multi: q.multiSelect && (q.options?.length ?? 0) > 0, run: opts.run, timeout: opts.timeout, signal,
        context: q.header,
      });
      answers[q.question] = Array.isArray(a) ? a.join(", ") : String(a);
    } catch (e) {
      if (e instanceof HitlError && (e.code === "timed_out" || e.code === "cancelled")) {
        return { behavior: "deny", message: `Nobody answered "${q.question}" (${e.code}): decide for yourself or stop.` };
      }
      throw e;
    }
  }
  return { behavior: "allow", updatedInput: { ...input, answers } };
}

/**
 * The operation a Claude Code tool call is, as hitl's hooks map it: Bash a
 * shell command, Write/Edit/MultiEdit/NotebookEdit a file write,
 * Read/Grep/Glob a file read, WebFetch/WebSearch and MCP tools API calls,
 * Task/Agent a subagent; any other tool is a custom operation named after
 * it, its input as the resource.
 */
export function operationOf(tool: string, input: Record<string, unknown>, cwd?: string): ToolOperation {
  const op = mapped(tool, input);
  const diffs = fileDiffs(tool, input, cwd);
  if (!diffs) return op;
  // The diff names the file placed in cwd, and shows the input: so does the resource (the service refuses a diff of another file).
  return { ...op, resource: diffs[0].path, diffs, context: diffs[0].unified ? undefined : op.context };
}

/** The diff of the file a Write, Edit or MultiEdit call would change, read now from this machine; undefined for other tools. */
export function fileDiffs(tool: string, input: Record<string, unknown>, cwd?: string): FileDiff[] | undefined {
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  const path = absolute(str(input.file_path), cwd);
  const rep = (e: Record<string, unknown>) => ({ old: str(e.old_string), new: str(e.new_string), all: e.replace_all === true });
  switch (tool) {
    case "Write": return [writeDiff(path, str(input.content))];
    case "Edit": return [editDiff(path, [rep(input)])];
    case "MultiEdit": return [editDiff(path, (Array.isArray(input.edits) ? input.edits : []).filter((e): e is Record<string, unknown> => !!e && typeof e === "object").map(rep))];
  }
  return undefined;
}

function mapped(tool: string, input: Record<string, unknown>): ToolOperation {
  const str = (k: string) => (typeof input[k] === "string" ? (input[k] as string) : "");
  const desc = str("description");
  const preview = readable(input);
  switch (tool) {
    case "Bash": {
      const cmd = str("command");
      return { opType: "shell", resource: cmd, action: desc ? `${desc}: ${cmd}` : `Run ${cmd}`, editField: "command" };
    }
    case "Write": case "Edit": case "MultiEdit":
      return { opType: "file_write", resource: str("file_path"), action: `${tool} ${str("file_path")}`, context: preview, editField: "file_path" };
    case "NotebookEdit":
      return { opType: "file_write", resource: str("notebook_path"), action: `${tool} ${str("notebook_path")}`, context: preview, editField: "notebook_path" };
    case "Read":
      return { opType: "file_read", resource: str("file_path"), action: `Read ${str("file_path")}`, editField: "file_path" };
    case "Grep": case "Glob":
      return { opType: "file_read", resource: str("path"), action: `${tool} ${str("pattern")} in ${str("path") || "the working directory"}`, editField: "path" };
    case "WebFetch":
      return { opType: "api_call", resource: str("url"), action: `WebFetch ${str("url")}`, editField: "url" };
    case "WebSearch":
      return { opType: "api_call", resource: str("query"), action: `WebSearch ${str("query")}`, editField: "query" };
    case "Task": case "Agent":
      return { opType: "spawn_agent", resource: str("subagent_type"), action: `Start a subagent: ${desc || str("prompt")}` };
  }
  if (tool.startsWith("mcp__")) return { opType: "api_call", resource: tool, action: `Call the MCP tool ${tool}`, context: preview };
  return { opType: "custom", resource: cut(JSON.stringify(input), 4000), action: `Use the tool ${tool}`, context: preview };
}

/** A tool's input as people read it: a line per argument, a multi-line string as its lines (indented), other values as JSON; cut at 1500 characters. */
function readable(input: Record<string, unknown>): string {
  const lines = ["Input:"];
  for (const [k, v] of Object.entries(input)) {
    if (typeof v === "string" && v.includes("\n")) lines.push(`${k}:`, ...v.split("\n").map((l) => "  " + l));
    else lines.push(`${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
  }
  return cut(lines.join("\n"), 1500);
}

function cut(s: string, n: number): string {
  return s.length <= n ? s : s.slice(0, n) + " …[cut]";
}
