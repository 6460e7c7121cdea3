// The adapters' diffs (src/diff.ts) as the real service checks them: random
// old and new files, each diff accepted (headers, hunks and counts agree; the
// service refuses one that does not) and, applied with patch(1), giving the
// new file.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeDiff } from "../src/diff.js";
import { HitlError } from "../src/index.js";
import type { FileDiff, PolicyDecision } from "../src/types.js";
import { Hitl } from "./hitl.js";

let hitl: Hitl;
let dir: string;
before(async () => { hitl = await Hitl.start(); dir = mkdtempSync(join(tmpdir(), "hitl-diff-")); });
after(async () => { await hitl?.stop(); rmSync(dir, { recursive: true, force: true }); });

const words = ["a", "b", "c", "", "  x", "same", "z\r", "ü"];

/** A small seeded generator (mulberry32): the same files every run. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function text(r: () => number): string {
  const n = Math.floor(r() * 31);
  const s = Array.from({ length: n }, () => words[Math.floor(r() * words.length)]).join("\n");
  return s && r() < 0.7 ? s + "\n" : s;
}

function check(path: string, d: FileDiff): Promise<PolicyDecision> {
  return hitl.agent().call<PolicyDecision>({ method: "POST", path: "/api/policy/check", body: { opType: "file_write", operation: "Write f.txt", resource: path, diffs: [d] }, replay: true });
}

describe("adapter diffs", () => {
  test("the service accepts every diff, and each is the change", async () => {
    for (let seed = 0; seed < 40; seed++) {
      const r = rng(seed);
      const old = text(r), now = text(r);
      const path = join(dir, `f${seed}.txt`);
      if (seed % 5) writeFileSync(path, old);
      const d = writeDiff(path, now);
      if (d.problem) {
        assert.equal(d.problem, "no change: the file already has this content");
        assert.equal(old, now);
        continue;
      }
      assert.equal((await check(path, d)).decision, "ask", `seed ${seed}`);
      const work = join(dir, `w${seed}.txt`);
      writeFileSync(work, seed % 5 ? old : "");
      execFileSync("patch", ["-s", "-u", work], { input: d.unified });
      assert.equal(readFileSync(work, "utf8"), now, `seed ${seed}: ${d.unified}`);
    }
  });

  test("a diff whose counts disagree is refused (the check above can fail)", async () => {
    const path = join(dir, "g.txt");
    const d = writeDiff(path, "a\nb\n");
    await assert.rejects(check(path, { ...d, added: 3 }), (e: unknown) => e instanceof HitlError && e.code === "invalid" && /counts/.test(e.message));
  });
});
