// @hitl/client/claude-agent-sdk: the Claude Agent SDK's permission prompt
// (canUseTool) answered through hitl.
//
//   for await (const m of query({ prompt, options: { canUseTool: canUseTool(client) } })) { … }
import type { Client, Decision } from "./client.js";
import { HitlError } from "./errors.js";
import { validateSchema } from "./schema.js";
import { replyMessage } from "./tool.js";

/** What canUseTool returns (the SDK's PermissionResult). */
export type PermissionResult =
  | { behavior: "allow"; updatedInput: Record<string, unknown> }
  | { behavior: "deny"; message: string };

export interface CanUseToolOptions {
  /** The run the approvals go to (default: the client's). */
  run?: string;
  /** Seconds each approval or question waits for a person. */
  timeout?: number;
}

interface CallOptions { signal?: AbortSignal; decisionReason?: string; title?: string; description?: string; toolUseID?: string }

/** The tool Claude asks its user questions with: hitl asks them instead. */
export const askUserQuestionTool = "AskUserQuestion";

/** An operation as hitl's policy decides it (the mapping of hitl's Claude Code hooks). */
interface ToolOperation { opType: string; action: string; resource?: string; context?: string; editField?: string }

/**
 * The `canUseTool` callback for the SDK's options: hitl's policy first
 * (decided as for an agent about to ask its own person: only a rule a
 * person wrote or taught allows), then a person. Approved → allow with the
 * input, edited → allow with the edited field put in the input, denied →
 * deny with the person's reason. AskUserQuestion becomes hitl questions
 * whose answers go back in `updatedInput.answers`.
 */
export function canUseTool(client: Client, opts: CanUseToolOptions = {}): (toolName: string, input: Record<string, unknown>, options: CallOptions) => Promise<PermissionResult> {
  return async (toolName, input, options) => {
    if (toolName === askUserQuestionTool) return askUser(client, input, opts, options.signal);
    const op = operationOf(toolName, input);
    const why = options.decisionReason || options.title || "";
    const d: Decision = await client.requestApproval(op.action, {
      opType: op.opType, resource: op.resource, reason: [why, op.context].filter(Boolean).join("\n") || undefined,
      prompted: true, run: opts.run, timeout: opts.timeout, signal: options.signal,
    });
    switch (d.outcome) {
      case "approved":
        return { behavior: "allow", updatedInput: input };
      case "edited": {
        const edited = String(d.editedInput);
        if (!op.editField) return { behavior: "deny", message: `${d.by ?? "the approver"} approved ${toolName} only with an edit hitl cannot apply to it: ${edited}` };
        const updated = { ...input, [op.editField]: edited };
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
export function operationOf(tool: string, input: Record<string, unknown>): ToolOperation {
  const str = (k: string) => (typeof input[k] === "string" ? (input[k] as string) : "");
  const desc = str("description");
  const preview = `Input: ${cut(JSON.stringify(input), 1500)}`;
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

function cut(s: string, n: number): string {
  return s.length <= n ? s : s.slice(0, n) + " …[cut]";
}
