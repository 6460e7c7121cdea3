// @hitl/client/ai-sdk: the Vercel AI SDK (ai ≥ 6) tool approvals through hitl.
//
//   const tools = { deleteFile: tool({ …, needsApproval: needsApproval(client, "deleteFile") }) };
//   let result = await generateText({ model, tools, messages });
//   const responses = await resolveApprovals(result, client, { tools });
//   messages.push(...result.response.messages, { role: "tool", content: responses });
//   result = await generateText({ model, tools, messages });
import type { Client } from "./client.js";
import { approveTool, checkTool, editProblem, replyMessage, type JSONSchema, type ToolOptions } from "./tool.js";

/** The part the AI SDK takes back in a tool message. */
export interface ToolApprovalResponse {
  type: "tool-approval-response";
  approvalId: string;
  approved: boolean;
  reason?: string;
}

interface ToolCallLike { toolCallId: string; toolName: string; input: unknown }
interface ApprovalRequestLike { type: "tool-approval-request"; approvalId: string; toolCall?: ToolCallLike; toolCallId?: string }
interface MessageLike { role: string; content: unknown }

/** What resolveApprovals reads: a generateText/streamText result, or the messages so far. */
export type ApprovalSource = { content: unknown[] } | { response: { messages: MessageLike[] } } | MessageLike[];

interface ToolLike { description?: string; inputSchema?: unknown }

export interface AISDKOptions extends ToolOptions {
  /** The tools (for their descriptions and input schemas, shown with the approval). */
  tools?: Record<string, ToolLike>;
}

/**
 * The `needsApproval` of a tool: hitl's policy decides each call. `allow`
 * runs it without asking; `ask` and `deny` make the SDK request an
 * approval, which resolveApprovals answers (a person, or the policy's
 * denial without anyone asked).
 */
export function needsApproval(client: Client, toolName: string, opts: ToolOptions = {}): (input: unknown) => Promise<boolean> {
  return async (input: unknown) => (await checkTool(client, { name: toolName, input }, opts)) !== "allow";
}

/**
 * Answers every pending `tool-approval-request` through hitl, in order, and
 * returns the `tool-approval-response` parts to send back in a tool
 * message. The AI SDK runs an approved tool only with the model's input:
 * the approval is sent with noEdit (no edit is offered; hitl refuses one).
 * A call that writes a whole file (opts.fileWrites, or fileWriteOf) is
 * asked as a file_write of its path with the diff of the file it would write.
 */
export async function resolveApprovals(source: ApprovalSource, client: Client, opts: AISDKOptions = {}): Promise<ToolApprovalResponse[]> {
  const out: ToolApprovalResponse[] = [];
  for (const req of pendingRequests(source)) {
    const call = req.toolCall!;
    const tool = opts.tools?.[call.toolName];
    const d = await approveTool(client, {
      name: call.toolName, input: call.input, description: tool?.description, schema: await jsonSchemaOf(tool?.inputSchema), editable: false,
    }, opts);
    if (d.outcome === "approved") {
      out.push({ type: "tool-approval-response", approvalId: req.approvalId, approved: true, ...(d.message ? { reason: d.message } : {}) });
    } else {
      const reason = d.outcome === "timed_out" ? `nobody approved ${call.toolName} in time`
        : d.outcome === "responded" ? replyMessage(d)
        : d.reason ?? `${d.by ?? "a person"} denied ${call.toolName}`;
      out.push({ type: "tool-approval-response", approvalId: req.approvalId, approved: false, reason });
    }
  }
  return out;
}

/** The approval requests of source that have no response yet, each with its tool call. */
function pendingRequests(source: ApprovalSource): Array<ApprovalRequestLike & { toolCall: ToolCallLike }> {
  const parts: unknown[] = [];
  if (Array.isArray(source)) {
    for (const m of source) if (Array.isArray(m.content)) parts.push(...m.content);
  } else if ("content" in source && Array.isArray(source.content)) {
    parts.push(...source.content);
  } else if ("response" in source) {
    for (const m of source.response.messages) if (Array.isArray(m.content)) parts.push(...m.content);
  }
  const calls = new Map<string, ToolCallLike>();
  const answered = new Set<string>();
  const reqs: ApprovalRequestLike[] = [];
  for (const p of parts as Array<Record<string, unknown>>) {
    if (p?.type === "tool-call") calls.set(p.toolCallId as string, { toolCallId: p.toolCallId as string, toolName: p.toolName as string, input: p.input });
    if (p?.type === "tool-approval-request") reqs.push(p as unknown as ApprovalRequestLike);
    if (p?.type === "tool-approval-response") answered.add(p.approvalId as string);
  }
  return reqs
    .filter((r) => !answered.has(r.approvalId))
    .map((r) => ({ ...r, toolCall: r.toolCall ?? calls.get(r.toolCallId ?? "")! }))
    .filter((r) => r.toolCall !== undefined);
}

/** The JSON schema of an AI SDK input schema (a jsonSchema() or a zod schema), when it has one. */
async function jsonSchemaOf(s: unknown): Promise<JSONSchema | undefined> {
  if (!s || typeof s !== "object") return undefined;
  const js = (s as { jsonSchema?: unknown }).jsonSchema;
  if (js && typeof js === "object") return js as JSONSchema;
  try {
    const ai = (await import("ai")) as unknown as { asSchema?: (x: unknown) => { jsonSchema: unknown } };
    const j = await ai.asSchema?.(s)?.jsonSchema;
    return j && typeof j === "object" ? (j as JSONSchema) : undefined;
  } catch {
    return undefined;
  }
}

export { editProblem };
