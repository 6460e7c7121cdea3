// The Claude Agent SDK driven end to end: the real Claude Code CLI it
// ships, an Anthropic-compatible /v1/messages server on loopback as the
// model (ANTHROPIC_BASE_URL), its Write tool writing real files, a real
// hitl serve, a person answering through the API.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { canUseTool, permissions } from "../src/claude-agent-sdk.js";
import { Hitl } from "./hitl.js";
import { show } from "./readable.js";
import { fakeAnthropic } from "./fakemodel.js";
import { HitlError } from "../src/index.js";

let hitl: Hitl;
before(async () => { hitl = await Hitl.start(); });
after(async () => { await hitl?.stop(); });

/** Runs Claude on a prompt whose model calls toolName with input(dir) once. */
async function claudeRun(runId: string, toolName: string, input: (dir: string) => Record<string, unknown>, person?: (run: string, dir: string) => Promise<void>, timeout?: number, setup?: (dir: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), "hitl-claude-"));
  dirs.push(dir);
  setup?.(dir);
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
        ...permissions(client, { timeout, cwd: dir }),
      },
    })) {
      if (m.type === "result") result = m.subtype === "success" ? m.result : `error: ${m.subtype}`;
    }
    await answering;
    const file = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), "utf8") : undefined);
    // What the model read after its tool ran: the last request's last message.
    const last = model.requests[model.requests.length - 1] as { messages?: unknown[] } | undefined;
    const afterTool = JSON.stringify(last?.messages?.[last.messages.length - 1] ?? null);
    return { result, file, dir, afterTool };
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
      // The diff of the file it would write, computed by the adapter from the file on this machine.
      const path = join(dir, "out.txt");
      assert.deepEqual(q.operation?.diffs, [{ path, change: "new", added: 1, removed: 0, unified: `--- /dev/null\n+++ b${path}\n@@ -0,0 +1 @@\n+hello\n\\ No newline at end of file\n` }]);
      assert.match(show(hitl, q.id), /\(\+1 −0\)/);
      await hitl.answer(q.id, { value: "approve" });
    });
    assert.equal(r.file("out.txt"), "hello");
    assert.match(r.result, /^done: File created successfully/);
  });

  test("moved: asked again with the diff at the path the person chose; Claude writes there and is told", async () => {
    const r = await claudeRun("cl-edit", "Write", write("out.txt"), async (run, dir) => {
      const q = await hitl.pending((q) => q.jobId === run);
      await hitl.answer(q.id, { value: "approve", edited: join(dir, "safer.txt") });
      const again = await hitl.pending((x) => x.jobId === run && x.id !== q.id);
      assert.equal(again.operation?.resource, join(dir, "safer.txt"));
      assert.match(again.operation?.context ?? "", /api:person moved this write from .*out\.txt to .*safer\.txt/);
      assert.equal((again.operation?.diffs as Array<{ path: string }>)[0].path, join(dir, "safer.txt"));
      assert.equal(existsSync(join(dir, "safer.txt")) || existsSync(join(dir, "out.txt")), false, "nothing runs before the moved write is approved");
      await hitl.answer(again.id, { value: "approve" });
    });
    assert.equal(r.file("out.txt"), undefined);
    assert.equal(r.file("safer.txt"), "hello");
    assert.match(r.afterTool, /api:person changed the input of this Write call in hitl before it ran/);
  });

  test("an edited command runs, and the model is told what ran", async () => {
    const r = await claudeRun("cl-bash-edit", "Bash", () => ({ command: "echo hi > side.txt", description: "write it" }), async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      assert.equal(q.operation?.noEdit, undefined);
      await hitl.answer(q.id, { value: "approve", edited: "echo edited > side.txt" });
    });
    assert.equal(r.file("side.txt"), "edited\n");
    assert.match(r.afterTool, /api:person changed the input of this Bash call in hitl before it ran.*echo edited > side.txt/);
  });

  test("approved as asked: no note", async () => {
    const r = await claudeRun("cl-bash-plain", "Bash", () => ({ command: "echo hi > side.txt" }), async (run) => {
      await hitl.answer((await hitl.pending((q) => q.jobId === run)).id, { value: "approve" });
    });
    assert.equal(r.file("side.txt"), "hi\n");
    assert.doesNotMatch(r.afterTool, /changed the input/);
  });

  test("a tool without an editable field is asked with noEdit; an MCP tool's input reads as its fields", async () => {
    const client = hitl.agent({ run: "cl-mcp" });
    const body = "Release notes:\n- faster\n- smaller";
    const decided = canUseTool(client)("mcp__notes__post", { channel: "#ops", body }, {});
    const q = await hitl.pending((q) => q.jobId === "cl-mcp");
    assert.equal(q.operation?.noEdit, true);
    const out = show(hitl, q.id);
    assert.ok(out.includes("channel: #ops\n") && out.includes("body:\n  Release notes:\n  - faster\n  - smaller"), out);
    assert.ok(!out.includes("\\n"), out);
    await assert.rejects(hitl.answer(q.id, { value: "approve", edited: "mcp__notes__delete" }), (e: unknown) => e instanceof HitlError && e.code === "invalid");
    await hitl.answer(q.id, { value: "approve" });
    assert.deepEqual(await decided, { behavior: "allow", updatedInput: { channel: "#ops", body } });
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
