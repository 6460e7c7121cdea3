// @hitl/client/openai-agents: the OpenAI Agents SDK (@openai/agents) tool
// approvals through hitl.
//
//   const deploy = tool({ name: "deploy", …, needsApproval: needsApproval(client, "deploy") });
//   const result = await run(new Agent({ tools: [deploy], … }), "ship it", { client });
import type { Client } from "./client.js";
import { approveTool, checkTool, replyMessage, type JSONSchema, type ToolDecision, type ToolOptions } from "./tool.js";

/** A RunToolApprovalItem, as the SDK hands it in result.interruptions. */
interface ApprovalItem {
  type: string;
  name?: string;
  arguments?: string;
  rawItem: { name?: string; arguments?: string; callId?: string; [k: string]: unknown };
  agent?: { tools?: Array<{ name?: string; description?: string; parameters?: unknown; [k: string]: unknown }> };
}

interface StateLike {
  approve(item: never, opts?: { alwaysApprove?: boolean }): void;
  reject(item: never, opts?: { alwaysReject?: boolean; message?: string }): void;
}

/** What resolve reads: a run result (or anything with interruptions and state). */
export interface ResultLike { interruptions?: unknown[]; state: unknown }

export interface OpenAIAgentsOptions extends ToolOptions {
  client: Client;
}

/**
 * The `needsApproval` of a function tool: hitl's policy decides each call
 * (`allow`: no interruption; `ask` and `deny`: an interruption that
 * resolve answers — a person, or the policy's denial without anyone asked).
 */
export function needsApproval(client: Client, toolName: string, opts: ToolOptions = {}): (runContext: unknown, input: unknown, callId?: string) => Promise<boolean> {
  return async (_ctx: unknown, input: unknown) => (await checkTool(client, { name: toolName, input: parseArgs(input) }, opts)) !== "allow";
}

/**
 * Answers every interruption of result through hitl: `state.approve` (with
 * `alwaysApprove` when the person chose "always"), `state.reject` with the
 * person's reason. The SDK runs an approved call only with the model's
 * arguments, so the approval is sent with noEdit (no edit is offered;
 * hitl refuses one). A call that writes a whole file (opts.fileWrites, or
 * fileWriteOf) is asked as a file_write of its path with its diff.
 * Returns the decisions, in order.
 */
export async function resolve(result: ResultLike, opts: OpenAIAgentsOptions): Promise<ToolDecision[]> {
  const state = result.state as StateLike;
  const out: ToolDecision[] = [];
  for (const raw of result.interruptions ?? []) {
    const item = raw as ApprovalItem;
    if (item.type !== "tool_approval_item") continue;
    const name = item.name ?? item.rawItem.name ?? "tool";
    const args = item.arguments ?? item.rawItem.arguments;
    const tool = item.agent?.tools?.find((t) => t.name === name);
    const input = parseArgs(args);
    const d = await approveTool(opts.client, {
      name, input, description: tool?.description, schema: tool?.parameters as JSONSchema | undefined,
      // The SDK binds an approval to the exact arguments the model gave
      // (a changed call fails closed on resume): an edit cannot be applied.
      editable: false,
    }, opts);
    out.push(d);
    switch (d.outcome) {
      case "approved":
        state.approve(item as never, { alwaysApprove: d.always === true });
        break;
      case "timed_out":
        state.reject(item as never, { message: `Nobody approved ${name} in time; it was not run.` });
        break;
      case "responded":
        state.reject(item as never, { message: replyMessage(d) });
        break;
      default:
        state.reject(item as never, { message: d.reason ? `${name} was denied: ${d.reason}` : `${name} was denied by ${d.by ?? "a person"}` });
    }
  }
  return out;
}

/** A run result: interruptions, state and the final output. */
export interface RunResultLike extends ResultLike { finalOutput?: unknown; [k: string]: unknown }

interface AgentsModule { run: (agent: unknown, input: unknown, opts?: unknown) => Promise<ResultLike> }

/**
 * Runs agent on input (`run` of @openai/agents, or opts.runner.run) and
 * answers every interruption through hitl until none is left.
 */
export async function run<R extends ResultLike = RunResultLike>(agent: unknown, input: unknown, opts: OpenAIAgentsOptions & { runner?: { run: (agent: never, input: never, o?: never) => Promise<R> }; runOptions?: Record<string, unknown>; maxRounds?: number }): Promise<R> {
  const runFn = opts.runner
    ? (a: unknown, i: unknown) => opts.runner!.run(a as never, i as never, opts.runOptions as never)
    : async (a: unknown, i: unknown) => ((await import("@openai/agents")) as unknown as AgentsModule).run(a, i, opts.runOptions) as Promise<R>;
  let result = await runFn(agent, input);
  for (let round = 0; result.interruptions?.length; round++) {
    if (round >= (opts.maxRounds ?? 100)) throw new Error(`the agent still asks for approvals after ${round} rounds`);
    await resolve(result, opts);
    result = await runFn(agent, result.state);
  }
  return result;
}

function parseArgs(args: unknown): unknown {
  if (typeof args !== "string") return args ?? {};
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}
