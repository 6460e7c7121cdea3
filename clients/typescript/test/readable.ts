// What a person reads of a question: `hitl show` (the real CLI) against the real service.
import { execFileSync } from "node:child_process";
import { hitlBinary, PERSON_TOKEN, type Hitl } from "./hitl.js";

/** `hitl show ID` as a person runs it (no colour). */
export function show(hitl: Hitl, qid: string): string {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("HITL_") && v !== undefined) env[k] = v;
  Object.assign(env, { HITL_URL: hitl.url, HITL_TOKEN: PERSON_TOKEN, NO_COLOR: "1" });
  return execFileSync(hitlBinary(), ["show", "--color", "never", qid], { env, encoding: "utf8", timeout: 60_000 });
}

/** How `hitl show` prints a multi-line input value: its key, then each line in a block. */
export function block(key: string, text: string): string {
  return `\n${key}:\n` + text.split("\n").map((l) => `  │ ${l}\n`).join("");
}
