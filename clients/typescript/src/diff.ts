// File diffs computed on the agent's machine, where the file is: what a
// file-writing tool call would do to the file as it is now, as the unified
// diff hitl shows the person who approves it (docs/diffs.md). The same
// shape and rules as hitl's Claude Code hook (mcp/filediff.go): 3 lines of
// context, `a/PATH` and `b/PATH` headers (`/dev/null` for a new file), the
// counts of the whole diff; a file that cannot be shown gets a `problem`.
import { readFileSync, statSync } from "node:fs";
import { isAbsolute, join, normalize } from "node:path";

import type { FileDiff } from "./types.js";

export type { FileDiff };

/** A file larger than this is not read for a diff (the diff says so). */
export const maxFileBytes = 8 << 20;
/** The service's bound on one operation's diffs (policy.MaxDiffBytes): a longer diff is cut at a line end. */
export const maxDiffBytes = 256 << 10;
const context = 3;
const noNewline = "\\ No newline at end of file";

/** path placed in cwd (default: this process's working directory), as the tool will find it. */
export function absolute(path: string, cwd?: string): string {
  if (!path || isAbsolute(path)) return path;
  return normalize(join(cwd ?? process.cwd(), path));
}

/** The file at path now: its content, whether it exists, or why it cannot be shown. */
function current(path: string): { content: string; exists: boolean; problem?: string } {
  if (!path) return { content: "", exists: false, problem: "the call names no file" };
  let b: Buffer;
  try {
    const st = statSync(path);
    if (st.isDirectory()) return { content: "", exists: true, problem: `${path} is a directory` };
    if (st.size > maxFileBytes) return { content: "", exists: true, problem: `the file is larger than ${maxFileBytes >> 20} MiB: no diff` };
    b = readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { content: "", exists: false };
    return { content: "", exists: true, problem: `cannot read the file: ${(e as Error).message}` };
  }
  if (b.includes(0)) return { content: "", exists: true, problem: "a binary file: no diff" };
  try {
    return { content: new TextDecoder("utf-8", { fatal: true }).decode(b), exists: true };
  } catch {
    return { content: "", exists: true, problem: "not UTF-8 text: no diff" };
  }
}

/** The diff of writing content to the file at path (absolute): a new file, or its change. */
export function writeDiff(path: string, content: string): FileDiff {
  const d: FileDiff = { path, change: "modify", added: 0, removed: 0 };
  const cur = current(path);
  if (cur.problem) return { ...d, problem: cur.problem };
  if (!cur.exists) d.change = "new";
  return diffOf(d, cur.content, content);
}

function diffOf(d: FileDiff, old: string, now: string): FileDiff {
  const slashed = d.path.startsWith("/") ? d.path : "/" + d.path;
  const u = unified(d.change === "new" ? "/dev/null" : "a" + slashed, "b" + slashed, old, now);
  if (!u.text) return d.change === "modify" ? { ...d, problem: "no change: the file already has this content" } : d;
  const out: FileDiff = { ...d, added: u.added, removed: u.removed, unified: u.text };
  if (Buffer.byteLength(u.text) > maxDiffBytes) {
    const b = Buffer.from(u.text).subarray(0, maxDiffBytes);
    out.unified = b.subarray(0, b.lastIndexOf(10) + 1).toString("utf-8");
    out.truncated = true;
  }
  return out;
}

/** s split after each \n (a last line without one is kept as it is). */
function lines(s: string): string[] {
  const out = s.split("\n");
  const last = out.pop()!;
  return out.map((l) => l + "\n").concat(last ? [last] : []);
}

type Op = { kind: " " | "-" | "+"; line: string; i: number; j: number };

/** The line edit script from a to b: common prefix and suffix, a longest common subsequence between (or, when that is too large to compute, everything between replaced). */
function script(a: string[], b: string[]): Op[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const ops: Op[] = [];
  for (let k = 0; k < pre; k++) ops.push({ kind: " ", line: a[k], i: k, j: k });
  const am = a.slice(pre, a.length - suf), bm = b.slice(pre, b.length - suf);
  const n = am.length, m = bm.length;
  if (n * m > 4_000_000) {
    am.forEach((l, k) => ops.push({ kind: "-", line: l, i: pre + k, j: pre }));
    bm.forEach((l, k) => ops.push({ kind: "+", line: l, i: pre + n, j: pre + k }));
  } else {
    // lcs[i][j]: the longest common subsequence of am[i:] and bm[j:].
    const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = am[i] === bm[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    let i = 0, j = 0;
    const del: Op[] = [], add: Op[] = [];
    const flush = () => { ops.push(...del, ...add); del.length = 0; add.length = 0; };
    while (i < n || j < m) {
      if (i < n && j < m && am[i] === bm[j]) { flush(); ops.push({ kind: " ", line: am[i], i: pre + i, j: pre + j }); i++; j++; }
      else if (j >= m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1])) { del.push({ kind: "-", line: am[i], i: pre + i, j: pre + j }); i++; }
      else { add.push({ kind: "+", line: bm[j], i: pre + i, j: pre + j }); j++; }
    }
    flush();
  }
  for (let k = 0; k < suf; k++) ops.push({ kind: " ", line: a[a.length - suf + k], i: a.length - suf + k, j: b.length - suf + k });
  return ops;
}

/** The unified diff of old against now (3 lines of context) and its lines added and removed; "" when equal. */
export function unified(oldName: string, newName: string, old: string, now: string): { text: string; added: number; removed: number } {
  const ops = script(lines(old), lines(now));
  const changed = ops.flatMap((o, k) => (o.kind === " " ? [] : [k]));
  if (changed.length === 0) return { text: "", added: 0, removed: 0 };
  // Hunks: each change with its context, merged when their contexts meet.
  const hunks: Array<[number, number]> = [];
  for (const k of changed) {
    const lo = Math.max(0, k - context), hi = Math.min(ops.length, k + context + 1);
    const last = hunks[hunks.length - 1];
    if (last && lo <= last[1]) last[1] = Math.max(last[1], hi);
    else hunks.push([lo, hi]);
  }
  let text = `--- ${oldName}\n+++ ${newName}\n`;
  let added = 0, removed = 0;
  for (const [lo, hi] of hunks) {
    const h = ops.slice(lo, hi);
    const oldN = h.filter((o) => o.kind !== "+").length, newN = h.filter((o) => o.kind !== "-").length;
    text += `@@ -${span(h[0].i, oldN)} +${span(h[0].j, newN)} @@\n`;
    for (const o of h) {
      if (o.kind === "+") added++;
      if (o.kind === "-") removed++;
      text += o.kind + o.line + (o.line.endsWith("\n") ? "" : `\n${noNewline}\n`);
    }
  }
  return { text, added, removed };
}

function span(start: number, n: number): string {
  if (n === 1) return String(start + 1);
  return n === 0 ? `${start},0` : `${start + 1},${n}`;
}

/** One old_string → new_string replacement of Claude Code's Edit or MultiEdit. */
export interface Replacement { old: string; new: string; all?: boolean }

/** The diff of Claude Code's Edit / MultiEdit: each replacement in turn, refused as Claude Code refuses it. */
export function editDiff(path: string, edits: Replacement[]): FileDiff {
  const d: FileDiff = { path, change: "modify", added: 0, removed: 0 };
  const cur = current(path);
  if (cur.problem) return { ...d, problem: cur.problem };
  let content = cur.content;
  for (const [i, e] of edits.entries()) {
    const which = edits.length > 1 ? `edit ${i + 1}: ` : "";
    const count = e.old ? content.split(e.old).length - 1 : 0;
    if (!cur.exists && i === 0 && e.old === "") { d.change = "new"; content = e.new; continue; }
    if (!cur.exists) return { ...d, problem: "the file does not exist" };
    if (e.old === "" && content === "") content = e.new;
    else if (e.old === "") return { ...d, problem: which + "old_string is empty but the file is not: Claude Code will refuse the edit" };
    else if (e.old === e.new) return { ...d, problem: which + "old_string and new_string are the same: nothing changes" };
    else if (count === 0) return { ...d, problem: which + "old_string is not in the file" };
    else if (count > 1 && !e.all) return { ...d, problem: `${which}old_string is in the file ${count} times and replace_all is false: Claude Code will refuse the edit` };
    else content = e.all ? content.split(e.old).join(e.new) : content.replace(e.old, () => e.new);
  }
  return diffOf(d, cur.content, content);
}
