// An agent that does not stay running while a person decides.
//
// An OpenAI Agents SDK run stops at a tool that needs approval: `start`
// asks hitl (the policy first, then a person in Slack, the web or a
// terminal), saves the run's state (RunState) under the approval's id, and
// returns — the process may exit. When the person decides, hitl posts a
// signed webhook (Standard Webhooks) to the approval's `callbackUrl` — or to
// an endpoint configured under `webhooks:` in hitl's config;
// `webhookHandler` verifies it, loads the state, applies the decision and
// runs the agent on from where it stopped.
//
//   const store = fileStore("./runs");
//   const callbackUrl = "https://agents.example.com/hitl"; // a host in hitl's webhooks_allowed_hosts
//   await start(agent, "Deploy v42 to production", { client, store, run: "deploy-42", callbackUrl });
//   http.createServer(webhookHandler({ agent, client, store, callbackUrl, secret: process.env.HITL_WEBHOOK_SECRET! })).listen(8080);
//
// With callbackUrl, the secret is the one in hitl's webhooks_callback_secret_file.
import type { IncomingMessage, ServerResponse } from "node:http";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Agent, RunState, run, type RunResult, type RunToolApprovalItem } from "@openai/agents";
import { Client, HitlError, verifyWebhook, actionOf, opTypeOf, replyMessage } from "@hitl/client";

/** A run waiting for people: its serialized state and the approvals it waits on (question id → tool call id). */
export interface Suspended {
  state: string;
  run: string;
  approvals: Record<string, string>;
}

/** Where suspended runs wait. `take` removes what it returns, so a repeated delivery resumes nothing twice. */
export interface StateStore {
  save(questionIds: string[], s: Suspended): Promise<void>;
  take(questionId: string): Promise<Suspended | undefined>;
}

/** A StateStore of JSON files in dir (one per approval; a rename claims it). */
export function fileStore(dir: string): StateStore {
  const file = (id: string) => join(dir, `${id.replace(/[^A-Za-z0-9_-]/g, "_")}.json`);
  return {
    async save(ids, s) {
      await mkdir(dir, { recursive: true });
      for (const id of ids) {
        await writeFile(file(id) + ".tmp", JSON.stringify(s));
        await rename(file(id) + ".tmp", file(id));
      }
    },
    async take(id) {
      const claimed = `${file(id)}.${process.pid}.${Date.now()}.claimed`;
      try {
        await rename(file(id), claimed);
      } catch {
        return undefined; // not ours, or already resumed by an earlier delivery
      }
      const s = JSON.parse(await readFile(claimed, "utf8")) as Suspended;
      await rm(claimed, { force: true });
      return s;
    },
  };
}

export interface Options {
  client: Client;
  store: StateStore;
  /** The hitl run the approvals go to. */
  run: string;
  /**
   * Where hitl POSTs each approval's outcome (this handler's URL, on a host
   * in hitl's webhooks_allowed_hosts). Without it, a configured endpoint
   * must deliver to the handler.
   */
  callbackUrl?: string;
}

/** How a run ended this time: finished, or waiting for people. */
export type Outcome = { finalOutput: unknown } | { waitingOn: string[] };

type Result = RunResult<any, Agent<any, any>>;

/** Runs agent on input until it finishes or needs a person (then its state is saved and it returns). */
export async function start(agent: Agent<any, any>, input: string, opts: Options): Promise<Outcome> {
  return settle(agent, await run(agent, input), opts);
}

/**
 * Asks hitl about each interruption without waiting: what the policy
 * decides alone is applied at once; what needs a person is saved.
 */
async function settle(agent: Agent<any, any>, result: Result, opts: Options): Promise<Outcome> {
  for (;;) {
    const items = (result.interruptions ?? []) as RunToolApprovalItem[];
    if (items.length === 0) return { finalOutput: result.finalOutput };
    const approvals: Record<string, string> = {};
    for (const item of items) {
      const name = item.name ?? "tool";
      const tool = (agent.tools as Array<{ name?: string; description?: string }>).find((t) => t.name === name);
      const a = await opts.client.approve(actionOf({ name, input: null, description: tool?.description }), {
        opType: opTypeOf(name), input: JSON.parse(item.arguments ?? "{}"), run: opts.run, callbackUrl: opts.callbackUrl,
      });
      if (a.decision === "allow") result.state.approve(item);
      else if (a.decision === "deny") result.state.reject(item, { message: `${name} was denied by policy rule ${a.rule}` });
      else approvals[a.questionId!] = String((item.rawItem as { callId?: string }).callId);
    }
    const ids = Object.keys(approvals);
    if (ids.length > 0) {
      await opts.store.save(ids, { state: result.state.toString(), run: opts.run, approvals });
      return { waitingOn: ids };
    }
    result = await run(agent, result.state);
  }
}

/**
 * Resumes the run waiting on questionId: each of its approvals decided
 * (one still pending puts it back to wait for the next delivery), the
 * decisions applied to the saved state, the agent run on.
 */
export async function resume(agent: Agent<any, any>, questionId: string, opts: Omit<Options, "run">): Promise<Outcome | undefined> {
  const s = await opts.store.take(questionId);
  if (!s) return undefined;
  const ids = Object.keys(s.approvals);
  const questions = await Promise.all(ids.map((id) => opts.client.question(id)));
  if (questions.some((q) => q.status === "pending")) {
    await opts.store.save([questionId], s);
    return { waitingOn: questions.filter((q) => q.status === "pending").map((q) => q.id) };
  }
  for (const id of ids) if (id !== questionId) await opts.store.take(id);
  try {
    return await apply(agent, s, ids, opts);
  } catch (e) {
    await opts.store.save(ids, s); // put it back: the next delivery retries
    throw e;
  }
}

async function apply(agent: Agent<any, any>, s: Suspended, ids: string[], opts: Omit<Options, "run">): Promise<Outcome> {
  const state = await RunState.fromString(agent, s.state);
  for (const item of state.getInterruptions()) {
    const callId = String((item.rawItem as { callId?: string }).callId);
    const qid = ids.find((id) => s.approvals[id] === callId);
    if (!qid) continue;
    let d;
    try {
      d = await opts.client.awaitApproval(qid);
    } catch (e) {
      if (e instanceof HitlError && e.code === "cancelled") { state.reject(item, { message: e.message }); continue; }
      throw e;
    }
    if (d.outcome === "approved") state.approve(item);
    else if (d.outcome === "timed_out") state.reject(item, { message: `Nobody approved ${item.name} in time; it was not run.` });
    else if (d.outcome === "responded") state.reject(item, { message: replyMessage(d) }); // a reply in words: not approved, the text is guidance
    else if (d.outcome === "edited") state.reject(item, { message: `${d.by} approved ${item.name} only with other arguments (${JSON.stringify(d.editedInput)}); call it again with them if they are right.` });
    else state.reject(item, { message: d.reason ? `${item.name} was denied: ${d.reason}` : `${item.name} was denied` });
  }
  return settle(agent, await run(agent, state), { ...opts, run: s.run });
}

/** The events that settle a question. */
const settling = new Set(["question.answered", "question.timed_out", "question.cancelled"]);

/**
 * An HTTP handler for hitl's webhooks: 401 for a delivery whose signature
 * or timestamp does not verify; 200 once a settled approval resumed its
 * run (or when it belongs to no waiting run: a repeated delivery).
 * onOutcome sees how each resumed run ended.
 */
export function webhookHandler(opts: Omit<Options, "run"> & { agent: Agent<any, any>; secret: string; onOutcome?: (o: Outcome) => void }) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const reply = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      let event;
      try {
        event = verifyWebhook<{ id?: string }>(opts.secret, req.headers, Buffer.concat(chunks));
      } catch (e) {
        return reply(401, { error: e instanceof HitlError ? e.message : "unverifiable delivery" });
      }
      if (!settling.has(event.type) || typeof event.data?.id !== "string") return reply(200, { ignored: event.type });
      try {
        const out = await resume(opts.agent, event.data.id, opts);
        if (out) opts.onOutcome?.(out);
        reply(200, out ?? { resumed: false });
      } catch (e) {
        // A 5xx makes hitl deliver again later (at least once).
        reply(500, { error: e instanceof Error ? e.message : String(e) });
      }
    });
  };
}
