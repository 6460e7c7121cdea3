// The Claude Agent SDK driven end to end: the real Claude Code CLI it
// ships, an Anthropic-compatible /v1/messages server on loopback as the
// model (ANTHROPIC_BASE_URL), its Write tool writing real files, a real
// hitl serve, a person answering through the API.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { canUseTool } from "../src/claude-agent-sdk.js";
import { Hitl } from "./hitl.js";
import { fakeAnthropic } from "./fakemodel.js";

let hitl: Hitl;
before(async () => { hitl = await Hitl.start(); });
after(async () => { await hitl?.stop(); });

/** Runs Claude on a prompt whose model calls toolName with input(dir) once. */
async function claudeRun(runId: string, toolName: string, input: (dir: string) => Record<string, unknown>, person?: (run: string, dir: string) => Promise<void>, timeout?: number) {
  const dir = mkdtempSync(join(tmpdir(), "hitl-claude-"));
  dirs.push(dir);
  const model = await fakeAnthropic(toolName, input(dir));
  try {
    const client = hitl.agent({ run: runId });
    const answering = person?.(runId, dir);
    let result = "";
    for await (const m of query({
      prompt: "do it",
      options: {
        cwd: dir, model: "claude-sonnet-4-5", maxTurns: 3, settingSources: [], persistSession: false,
        env: { PATH: process.env.PATH ?? "", HOME: dir, ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: "test-key", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1", DISABLE_ERROR_REPORTING: "1" },
        canUseTool: canUseTool(client, { timeout }),
      },
    })) {
      if (m.type === "result") result = m.subtype === "success" ? m.result : `error: ${m.subtype}`;
    }
    await answering;
    const file = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), "utf8") : undefined);
    return { result, file, dir };
  } finally {
    await model.close();
  }
}

const dirs: string[] = [];
const write = (name: string) => (dir: string) => ({ file_path: join(dir, name), content: "hello" });

describe("claude-agent-sdk canUseTool", () => {
  test("approved: Claude writes the file; people see the tool's operation and input", async () => {
    const r = await claudeRun("cl-approve", "Write", write("out.txt"), async (run, dir) => {
      const q = await hitl.pending((q) => q.jobId === run);
      assert.equal(q.operation?.opType, "file_write");
      assert.equal(q.operation?.resource, join(dir, "out.txt"));
      assert.equal(q.operation?.prompted, true);
      assert.match(q.operation?.context ?? "", /"content":"hello"/);
      await hitl.answer(q.id, { value: "approve" });
    });
    assert.equal(r.file("out.txt"), "hello");
    assert.match(r.result, /^done: File created successfully/);
  });

  test("edited: Claude writes the file the person chose, not the one it asked for", async () => {
    const r = await claudeRun("cl-edit", "Write", write("out.txt"), async (run, dir) => {
      const q = await hitl.pending((q) => q.jobId === run);
      await hitl.answer(q.id, { value: "approve", edited: join(dir, "safer.txt") });
    });
    assert.equal(r.file("out.txt"), undefined);
    assert.equal(r.file("safer.txt"), "hello");
  });

  test("denied with a reason: no file, and Claude reads the reason", async () => {
    const r = await claudeRun("cl-deny", "Write", write("out.txt"), async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      await hitl.answer(q.id, { value: "deny", text: "not in this repo" });
    });
    assert.equal(r.file("out.txt"), undefined);
    assert.match(r.result, /Denied by api:person: not in this repo/);
  });

  test("a reply in words: denied with the text (as hitl's Claude Code hook), no file", async () => {
    const r = await claudeRun("cl-reply", "Write", write("out.txt"), async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      await hitl.answer(q.id, { value: "reply", text: "write it to notes.txt instead" });
    });
    assert.equal(r.file("out.txt"), undefined);
    assert.match(r.result, /Not approved: api:person replied in hitl instead: write it to notes.txt instead/);
  });

  test("policy allow (a configured rule): written without asking anyone", async () => {
    const r = await claudeRun("cl-allow", "Write", write("allowed.txt"));
    assert.equal(r.file("allowed.txt"), "hello");
    const asked = await hitl.person().call<{ questions: unknown[] }>({ method: "GET", path: "/api/questions", query: { jobId: "cl-allow" }, replay: true });
    assert.equal(asked.questions.length, 0);
  });

  test("policy deny: never written, Claude told the rule", async () => {
    const r = await claudeRun("cl-policy-deny", "Write", write("denied.txt"));
    assert.equal(r.file("denied.txt"), undefined);
    assert.match(r.result, /denied-writes/);
  });

  test("timeout: nobody answers, nothing written", async () => {
    const r = await claudeRun("cl-timeout", "Write", write("out.txt"), undefined, 1);
    assert.equal(r.file("out.txt"), undefined);
    assert.match(r.result, /Nobody approved Write in time/);
  });

  test("AskUserQuestion: asked through hitl, the answers go back in updatedInput.answers", async () => {
    const r = await claudeRun("cl-ask", "AskUserQuestion", () => ({
      questions: [{ question: "Which database?", header: "DB", multiSelect: false, options: [{ label: "prod", description: "live" }, { label: "staging", description: "safe" }] }],
    }), async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      assert.equal(q.question, "Which database?");
      assert.deepEqual(q.options?.map((o) => o.label), ["prod", "staging"]);
      await hitl.answer(q.id, { value: "staging" });
    });
    assert.match(r.result, /staging/);
  });
});

after(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
