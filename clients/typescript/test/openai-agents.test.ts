// The OpenAI Agents SDK driven end to end: an OpenAI-compatible model on
// loopback, a real hitl serve deciding, a person answering through the API.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { Agent, tool, setTracingDisabled, OpenAIChatCompletionsModel, run as agentsRun } from "@openai/agents";
import OpenAI from "openai";
import { z } from "zod";
import { needsApproval, resolve, run } from "../src/openai-agents.js";
import { Hitl } from "./hitl.js";
import { HitlError } from "../src/index.js";
import { fakeOpenAI } from "./fakemodel.js";
import { block, show } from "./readable.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let hitl: Hitl;
before(async () => { setTracingDisabled(true); hitl = await Hitl.start(); });
after(async () => { await hitl?.stop(); });

/** Runs an agent whose model calls toolName with args once; person answers what hitl asks. */
async function agentRun(runId: string, toolName: string, opType: string | undefined, args: unknown, person?: (run: string) => Promise<void>, timeout?: number, cwd?: string) {
  const model = await fakeOpenAI(toolName, args);
  const client = hitl.agent({ run: runId });
  const ran: unknown[] = [];
  try {
    const t = tool({
      name: toolName,
      description: `Writes a file (${toolName})`,
      parameters: z.object({ path: z.string(), content: z.string() }),
      needsApproval: needsApproval(client, toolName, { opType, cwd }),
      execute: async (input) => { ran.push(input); return `wrote ${input.path}`; },
    });
    const agent = new Agent({
      name: "writer", instructions: "write files",
      model: new OpenAIChatCompletionsModel(new OpenAI({ baseURL: model.url, apiKey: "test-key" }), "fake-model"),
      tools: [t],
    });
    const answering = person?.(runId);
    const result = await run(agent, "write it", { client, opType, timeout, cwd });
    await answering;
    return { ran, result, model };
  } finally {
    await model.close();
  }
}

describe("openai-agents", () => {
  test("a file write is asked as file_write of its path, with the diff of the file it would write", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hitl-oa-"));
    writeFileSync(join(dir, "notes.md"), "one\ntwo\nthree\n");
    const path = join(dir, "notes.md");
    const r = await agentRun("oa-diff", "write_file", undefined, { path: "notes.md", content: "one\n2\nthree\nfour\n" }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      assert.equal(q.operation?.opType, "file_write");
      assert.equal(q.operation?.resource, path);
      assert.equal(q.operation?.cwd, dir);
      assert.equal(q.operation?.noEdit, true);
      assert.deepEqual(q.operation?.diffs, [{ path, change: "modify", added: 2, removed: 1, unified: `--- a${path}\n+++ b${path}\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n` }]);
      assert.match(show(hitl, q.id), /\(\+2 −1\)/);
      await hitl.answer(q.id, { value: "approve" });
    }, undefined, dir);
    assert.deepEqual(r.ran, [{ path: "notes.md", content: "one\n2\nthree\nfour\n" }]);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a tool's input reads as its fields, a multi-line value as a block", async () => {
    const content = "Deployed v2.\nStaging only.\n  - rollback: make undo";
    await agentRun("oa-readable", "publish", undefined, { path: "ops", content }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      const out = show(hitl, q.id);
      assert.ok(out.includes("  path: ops\n") && out.includes(block("content", content)), out);
      assert.ok(!out.includes("\\n"), out);
      await hitl.answer(q.id, { value: "deny" });
    });
  });

  test("approved: the tool runs once with the model's input", async () => {
    const r = await agentRun("oa-approve", "write_file", "file_write", { path: "/tmp/a", content: "x" }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      assert.equal(q.operation?.resource, "/tmp/a", "a file write is asked by its path");
      assert.equal(q.question, "write_file: Writes a file (write_file)");
      await hitl.answer(q.id, { value: "approve" });
    });
    assert.deepEqual(r.ran, [{ path: "/tmp/a", content: "x" }]);
    assert.equal(r.result.finalOutput, "done: wrote /tmp/a");
  });

  test("no edit is offered (the SDK binds approval to the model's arguments): hitl refuses one; approving runs the original", async () => {
    const r = await agentRun("oa-edit", "write_file", "file_write", { path: "/tmp/b", content: "x" }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      assert.equal(q.operation?.noEdit, true);
      await assert.rejects(hitl.answer(q.id, { value: "approve", edited: '{"path":"/tmp/safe","content":"x"}' }),
        (e: unknown) => e instanceof HitlError && e.code === "invalid" && /cannot run this file_write operation with other input/.test(e.message));
      await hitl.answer(q.id, { value: "approve" });
    });
    assert.deepEqual(r.ran, [{ path: "/tmp/b", content: "x" }]);
  });

  test("denied with a reason: the tool never runs and the model reads the reason", async () => {
    const r = await agentRun("oa-deny", "write_file", "file_write", { path: "/tmp/c", content: "x" }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      await hitl.answer(q.id, { value: "deny", text: "not that file" });
    });
    assert.deepEqual(r.ran, []);
    assert.match(String(r.result.finalOutput), /not that file/);
  });

  test("a reply in words: rejected with the text, the tool never runs", async () => {
    const r = await agentRun("oa-reply", "write_file", "file_write", { path: "/tmp/d", content: "x" }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      await hitl.answer(q.id, { value: "reply", text: "write /tmp/e instead" });
    });
    assert.deepEqual(r.ran, []);
    assert.match(String(r.result.finalOutput), /Not approved: api:person replied in hitl instead: write \/tmp\/e instead/);
  });

  test("policy allow: no interruption, nobody asked, the tool runs", async () => {
    const r = await agentRun("oa-allow", "lookup", "lookup", { path: "u/7", content: "" });
    assert.deepEqual(r.ran, [{ path: "u/7", content: "" }]);
    const asked = await hitl.person().call<{ questions: unknown[] }>({ method: "GET", path: "/api/questions", query: { jobId: "oa-allow" }, replay: true });
    assert.equal(asked.questions.length, 0);
  });

  test("policy deny: rejected by the rule, the tool never runs", async () => {
    const r = await agentRun("oa-policy-deny", "drop_table", "drop_table", { path: "users", content: "" });
    assert.deepEqual(r.ran, []);
    assert.match(String(r.result.finalOutput), /never-drop-tables/);
  });

  test("approve and always allow: alwaysApprove in the SDK, and hitl's policy allows the same call from now on", async () => {
    const model = await fakeOpenAI("write_file", { path: "/tmp/e", content: "x" });
    const client = hitl.agent({ run: "oa-always" });
    try {
      const ran: unknown[] = [];
      const t = tool({
        name: "write_file", description: "Writes a file", parameters: z.object({ path: z.string(), content: z.string() }),
        needsApproval: needsApproval(client, "write_file", { opType: "file_write" }),
        execute: async (input) => { ran.push(input); return "ok"; },
      });
      const agent = new Agent({ name: "w", model: new OpenAIChatCompletionsModel(new OpenAI({ baseURL: model.url, apiKey: "k" }), "m"), tools: [t] });
      const first = await agentsRun(agent, "write");
      assert.equal(first.interruptions?.length, 1);
      const approvals: unknown[] = [];
      const approve = first.state.approve.bind(first.state);
      first.state.approve = (item, o) => { approvals.push(o); approve(item, o); };
      const answering = (async () => {
        const q = await hitl.pending((q) => q.jobId === "oa-always");
        await hitl.answer(q.id, { value: "approve", always: true });
      })();
      await resolve(first, { client, opType: "file_write" });
      await answering;
      assert.deepEqual(approvals, [{ alwaysApprove: true }]);
      await agentsRun(agent, first.state);
      assert.deepEqual(ran, [{ path: "/tmp/e", content: "x" }]);
      // A file write is taught by its path, as for Claude Code's Write.
      const d = await client.check("file_write", "/tmp/e", { operation: "write_file: Writes a file" });
      assert.equal(d.decision, "allow", "the person taught hitl to allow writing this file");
      assert.equal((await client.check("file_write", "/tmp/f", { operation: "write_file: Writes a file" })).decision, "ask", "and only this file");
    } finally {
      await model.close();
    }
  });

  test("timeout: nobody answers, the tool never runs", async () => {
    const r = await agentRun("oa-timeout", "write_file", "file_write", { path: "/tmp/d", content: "x" }, undefined, 1);
    assert.deepEqual(r.ran, []);
    assert.match(String(r.result.finalOutput), /Nobody approved write_file in time/);
  });
});
