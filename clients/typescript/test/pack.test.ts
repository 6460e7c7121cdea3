// The published shape: `npm pack`, install the tarball into a clean
// project, import the package and a subpath, and type-check a consumer
// against the shipped declarations.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { repoRoot } from "./hitl.js";

const pkgDir = join(repoRoot, "clients", "typescript");

test("npm pack installs into a clean project; @hitl/client and its subpaths import and type-check", () => {
  const tmp = mkdtempSync(join(tmpdir(), "hitl-pack-"));
  try {
    execFileSync("npm", ["pack", "--pack-destination", tmp, "--silent"], { cwd: pkgDir, stdio: ["ignore", "pipe", "inherit"] });
    const tgz = readdirSync(tmp).find((f) => f.endsWith(".tgz"));
    assert.ok(tgz, "npm pack made no tarball");
    assert.match(tgz!, /^hitl-client-\d+\.\d+\.\d+\.tgz$/);
    const files = execFileSync("tar", ["-tzf", join(tmp, tgz!)], { encoding: "utf8" }).split("\n");
    assert.ok(files.includes("package/dist/index.d.ts"), "no type declarations in the tarball");
    assert.ok(!files.some((f) => f.includes("/test/") || f.includes("node_modules")), "the tarball ships tests or node_modules");

    const proj = join(tmp, "proj");
    execFileSync("mkdir", ["-p", proj]);
    writeFileSync(join(proj, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", type: "module", private: true }));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--offline", "--silent", join(tmp, tgz!)], { cwd: proj, stdio: ["ignore", "pipe", "inherit"] });
    const out = execFileSync("node", ["--input-type=module", "-e", `
      import { Client, HitlError, verifyWebhook } from "@hitl/client";
      import { needsApproval, resolveApprovals } from "@hitl/client/ai-sdk";
      import { canUseTool } from "@hitl/client/claude-agent-sdk";
      import { resolve } from "@hitl/client/langgraph";
      import { run } from "@hitl/client/openai-agents";
      const c = new Client({ url: "http://127.0.0.1:1", token: "t" });
      console.log([typeof c.ask, new HitlError("x", "y").code, typeof verifyWebhook, typeof needsApproval, typeof resolveApprovals, typeof canUseTool, typeof resolve, typeof run].join(","));
    `], { cwd: proj, encoding: "utf8" });
    assert.equal(out.trim(), "function,x,function,function,function,function,function,function");

    writeFileSync(join(proj, "consumer.ts"), `
      import { Client, HitlError, type Decision } from "@hitl/client";
      import { canUseTool, type PermissionResult } from "@hitl/client/claude-agent-sdk";
      const c = new Client({ url: "http://127.0.0.1:1" });
      export async function f(): Promise<string | string[] | boolean> { return c.ask("q?", { options: ["a", "b"] }); }
      export async function g(): Promise<Decision> { return c.requestApproval("x", { opType: "shell", resource: "ls" }); }
      export const h: (n: string, i: Record<string, unknown>, o: { signal: AbortSignal }) => Promise<PermissionResult> = canUseTool(c);
      export const e: string = new HitlError("a", "b").code;
    `);
    writeFileSync(join(proj, "tsconfig.json"), JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022", "DOM"], types: [], strict: true, noEmit: true, skipLibCheck: false }, files: ["consumer.ts"] }));
    execFileSync(resolve(pkgDir, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], { cwd: proj, stdio: ["ignore", "inherit", "inherit"] });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
