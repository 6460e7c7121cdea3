// The AI SDK (ai ≥ 6) driven end to end: its own MockLanguageModelV3 plays
// the model, a real hitl serve decides, a person answers through the API.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { generateText, tool, jsonSchema, stepCountIs, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
import { needsApproval, resolveApprovals } from "../src/ai-sdk.js";
import { HitlError, type Client } from "../src/index.js";
import { Hitl } from "./hitl.js";
import { block, show } from "./readable.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let hitl: Hitl;
before(async () => { hitl = await Hitl.start(); });
after(async () => { await hitl?.stop(); });

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** A model that calls toolName with input once, then says "done" once it has a tool result. */
function model(toolName: string, input: unknown) {
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const answered = prompt.some((m) => m.role === "tool" && m.content.some((p) => p.type === "tool-result"));
      if (answered) return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
      return { content: [{ type: "tool-call", toolCallId: "call-1", toolName, input: JSON.stringify(input) }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] };
    },
  });
}

/** Runs an agent step, answers its approvals through hitl, runs it again. */
async function agentRun(client: Client, toolName: string, opType: string, input: unknown, person?: (run: string) => Promise<void>) {
  const ran: unknown[] = [];
  const tools = {
    [toolName]: tool({
      description: `The ${toolName} tool`,
      inputSchema: z.object({ path: z.string() }),
      needsApproval: needsApproval(client, toolName, { opType }),
      execute: async (args: { path: string }) => { ran.push(args); return `did ${args.path}`; },
    }),
  };
  const messages: ModelMessage[] = [{ role: "user", content: "go" }];
  const m = model(toolName, input);
  let result = await generateText({ model: m, tools, messages, stopWhen: stepCountIs(3) });
  const requests = result.content.filter((p) => p.type === "tool-approval-request");
  let responses: Awaited<ReturnType<typeof resolveApprovals>> = [];
  if (requests.length) {
    const run = await client.defaultRun();
    const answering = person?.(run);
    responses = await resolveApprovals(result, client, { tools, opType, timeout: person ? undefined : 1 });
    await answering;
    messages.push(...result.response.messages, { role: "tool", content: responses });
    result = await generateText({ model: m, tools, messages, stopWhen: stepCountIs(3) });
  }
  return { ran, requests, responses, result, messages };
}

/** One step of a model calling a tool with input, its approvals answered through hitl, then the next step. */
async function oneTool(client: Client, toolName: string, input: Record<string, string>, person: (run: string) => Promise<void>, cwd?: string) {
  const ran: unknown[] = [];
  const tools = {
    [toolName]: tool({
      description: `The ${toolName} tool`,
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      needsApproval: needsApproval(client, toolName, { cwd }),
      execute: async (args: { path: string; content: string }) => { ran.push(args); return `did ${args.path}`; },
    }),
  };
  const messages: ModelMessage[] = [{ role: "user", content: "go" }];
  const m = model(toolName, input);
  const result = await generateText({ model: m, tools, messages, stopWhen: stepCountIs(3) });
  const answering = person(await client.defaultRun());
  const responses = await resolveApprovals(result, client, { tools, cwd });
  await answering;
  messages.push(...result.response.messages, { role: "tool", content: responses });
  await generateText({ model: m, tools, messages, stopWhen: stepCountIs(3) });
  return { ran, responses };
}

describe("ai-sdk", () => {
  test("a file write is asked as file_write of its path with the diff of the file it would write; no edit offered", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hitl-ai-"));
    const path = join(dir, "notes.md");
    const r = await oneTool(hitl.agent({ run: "ai-diff" }), "writeFile", { path: "notes.md", content: "a\nb\n" }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      assert.equal(q.operation?.opType, "file_write");
      assert.equal(q.operation?.resource, path);
      assert.equal(q.operation?.noEdit, true);
      assert.deepEqual(q.operation?.diffs, [{ path, change: "new", added: 2, removed: 0, unified: `--- /dev/null\n+++ b${path}\n@@ -0,0 +1,2 @@\n+a\n+b\n` }]);
      await hitl.answer(q.id, { value: "approve" });
    }, dir);
    assert.deepEqual(r.ran, [{ path: "notes.md", content: "a\nb\n" }]);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a tool's input reads as its fields, a multi-line value as a block", async () => {
    const content = "line 1\nline 2\n\n  indented";
    const r = await oneTool(hitl.agent({ run: "ai-readable" }), "publishNote", { path: "ops", content }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      const out = show(hitl, q.id);
      assert.ok(out.includes("  path: ops\n") && out.includes(block("content", content)), out);
      assert.ok(!out.includes("\\n"), out);
      await hitl.answer(q.id, { value: "deny" });
    });
    assert.deepEqual(r.ran, []);
  });

  test("approved: the tool runs once, with the model's input", async () => {
    const c = hitl.agent({ run: "ai-approve" });
    const r = await agentRun(c, "deleteFile", "file_delete", { path: "/tmp/a" }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      assert.equal(q.operation?.resource, '{"path":"/tmp/a"}');
      assert.match(q.question, /^deleteFile: The deleteFile tool$/);
      await hitl.answer(q.id, { value: "approve" });
    });
    assert.equal(r.requests.length, 1);
    assert.deepEqual(r.responses.map((x) => x.approved), [true]);
    assert.deepEqual(r.ran, [{ path: "/tmp/a" }]);
    assert.equal(r.result.text, "done");
  });

  test("denied with a reason: the tool never runs and the model reads the reason", async () => {
    const c = hitl.agent({ run: "ai-deny" });
    const r = await agentRun(c, "deleteFile", "file_delete", { path: "/tmp/b" }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      await hitl.answer(q.id, { value: "deny", text: "keep that file" });
    });
    assert.deepEqual(r.responses, [{ type: "tool-approval-response", approvalId: r.responses[0].approvalId, approved: false, reason: "keep that file" }]);
    assert.deepEqual(r.ran, []);
    assert.match(JSON.stringify(r.result.response.messages.length ? r.messages : []), /keep that file/);
  });

  test("a reply in words: a denied approval response with the text as the reason, the tool never runs", async () => {
    const c = hitl.agent({ run: "ai-reply" });
    const r = await agentRun(c, "deleteFile", "file_delete", { path: "/tmp/b2" }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      await hitl.answer(q.id, { value: "reply", text: "archive it instead" });
    });
    const reason = "Not approved: api:person replied in hitl instead: archive it instead";
    assert.deepEqual(r.responses, [{ type: "tool-approval-response", approvalId: r.responses[0].approvalId, approved: false, reason }]);
    assert.deepEqual(r.ran, []);
    assert.match(JSON.stringify(r.messages), /replied in hitl instead: archive it instead/);
  });

  test("no edit is offered: the AI SDK runs a tool only with the model's input, so hitl refuses an edit; approving runs it", async () => {
    const c = hitl.agent({ run: "ai-edit" });
    const r = await agentRun(c, "deleteFile", "file_delete", { path: "/tmp/c" }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      assert.equal(q.operation?.noEdit, true);
      await assert.rejects(hitl.answer(q.id, { value: "approve", edited: '{"path":"/tmp/other"}' }),
        (e: unknown) => e instanceof HitlError && e.code === "invalid" && /cannot run this file_delete operation with other input/.test(e.message));
      await hitl.answer(q.id, { value: "approve" });
    });
    assert.deepEqual(r.ran, [{ path: "/tmp/c" }]);
  });

  test("policy allow: no approval requested, nobody asked, the tool runs", async () => {
    const c = hitl.agent({ run: "ai-allow" });
    const r = await agentRun(c, "lookup", "lookup", { path: "users/7" });
    assert.equal(r.requests.length, 0);
    assert.deepEqual(r.ran, [{ path: "users/7" }]);
    const asked = await hitl.person().call<{ questions: unknown[] }>({ method: "GET", path: "/api/questions", query: { jobId: await c.defaultRun() }, replay: true });
    assert.equal(asked.questions.length, 0);
  });

  test("policy deny: denied at once by the rule, the tool never runs", async () => {
    const c = hitl.agent({ run: "ai-policy-deny" });
    const r = await agentRun(c, "dropTable", "drop_table", { path: "users" });
    assert.equal(r.responses.length, 1);
    assert.equal(r.responses[0].approved, false);
    assert.match(r.responses[0].reason!, /never-drop-tables/);
    assert.deepEqual(r.ran, []);
  });

  test("timeout: nobody answers, the tool never runs", async () => {
    const c = hitl.agent({ run: "ai-timeout" });
    const r = await agentRun(c, "deleteFile", "file_delete", { path: "/tmp/d" });
    assert.equal(r.responses[0].approved, false);
    assert.match(r.responses[0].reason!, /nobody approved deleteFile in time/);
    assert.deepEqual(r.ran, []);
  });

  test("resolveApprovals reads a message list too, skipping answered requests", async () => {
    const c = hitl.agent({ run: "ai-msgs" });
    const tools = { deleteFile: tool({ inputSchema: jsonSchema<{ path: string }>({ type: "object", properties: { path: { type: "string" } } }), needsApproval: true, execute: async () => "x" }) };
    const messages: ModelMessage[] = [
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "t1", toolName: "deleteFile", input: { path: "/x" } }, { type: "tool-approval-request", approvalId: "a1", toolCallId: "t1" }] },
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: "a1", approved: true }] },
    ];
    assert.deepEqual(await resolveApprovals(messages, c, { tools }), []);
  });
});
