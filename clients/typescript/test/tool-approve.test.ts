// approveTool, the building block every TypeScript adapter asks with,
// against a real hitl serve: a file write moved by a person to another path
// is asked again with the diff at that path, and runs only when approved.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { approveTool } from "../src/index.js";
import { Hitl } from "./hitl.js";

let hitl: Hitl;
let dir: string;
before(async () => { hitl = await Hitl.start(); dir = mkdtempSync(join(tmpdir(), "hitl-tool-")); });
after(async () => { await hitl?.stop(); rmSync(dir, { recursive: true, force: true }); });

test("a moved file write is asked again with the diff at the new path, and comes back edited", async () => {
  writeFileSync(join(dir, "old.md"), "keep\n");
  const call = { name: "write_file", input: { path: "new.md", content: "a\n" } };
  const decided = approveTool(hitl.agent({ run: "tool-moved" }), call, { cwd: dir });
  const q = await hitl.pending((q) => q.jobId === "tool-moved");
  assert.equal(q.operation?.resource, join(dir, "new.md"));
  await hitl.answer(q.id, { value: "approve", edited: "old.md" });
  const again = await hitl.pending((x) => x.jobId === "tool-moved" && x.id !== q.id);
  assert.equal(again.operation?.resource, join(dir, "old.md"));
  assert.match(again.operation?.context ?? "", /api:person moved this write from .*new\.md to .*old\.md/);
  const d = again.operation?.diffs?.[0];
  assert.equal(d?.unified, `--- a${join(dir, "old.md")}\n+++ b${join(dir, "old.md")}\n@@ -1 +1 @@\n-keep\n+a\n`);
  await hitl.answer(again.id, { value: "approve" });
  const got = await decided;
  assert.equal(got.outcome, "edited");
  assert.deepEqual(got.input, { path: "old.md", content: "a\n" });
});

test("a moved file write denied when asked again is denied", async () => {
  const decided = approveTool(hitl.agent({ run: "tool-moved-deny" }), { name: "write_file", input: { path: "x.md", content: "a\n" } }, { cwd: dir });
  const q = await hitl.pending((q) => q.jobId === "tool-moved-deny");
  await hitl.answer(q.id, { value: "approve", edited: "y.md" });
  const again = await hitl.pending((x) => x.jobId === "tool-moved-deny" && x.id !== q.id);
  await hitl.answer(again.id, { value: "deny", text: "not there either" });
  const got = await decided;
  assert.equal(got.outcome, "denied");
  assert.equal(got.input, undefined);
});
