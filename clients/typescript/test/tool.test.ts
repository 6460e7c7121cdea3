// Table tests of the rules the adapters share: a tool's operation type,
// and which edits may be used.
import { test } from "node:test";
import assert from "node:assert/strict";
import { editProblem, fileWriteOf, opTypeOf, validateSchema, type JSONSchema } from "../src/index.js";
import { operationOf } from "../src/claude-agent-sdk.js";

test("a tool's operation type is its name, made a valid hitl op type", () => {
  for (const [name, want] of [
    ["send_email", "send_email"],
    ["deleteFile", "deletefile"],
    ["mcp__github__create issue", "mcp__github__create_issue"],
    ["42things", "tool_42things"],
    ["Shell", "tool_shell"],
    ["file_write", "tool_file_write"],
    ["spawn_agent", "tool_spawn_agent"],
    ["x".repeat(80), "x".repeat(64)],
  ]) assert.equal(opTypeOf(name), want, name);
  assert.equal(opTypeOf("deleteFile", { opType: "file_delete" }), "file_delete");
  assert.equal(opTypeOf("deleteFile", { opType: (n) => `tool.${n.toLowerCase()}` }), "tool.deletefile");
});

const schema: JSONSchema = {
  type: "object", required: ["to", "n"], additionalProperties: false,
  properties: { to: { type: "string", minLength: 3 }, n: { type: "integer", minimum: 1 }, mode: { enum: ["a", "b"] }, tags: { type: "array", items: { type: "string" } } },
};

test("an edit is usable only as a JSON object that fits the tool's schema", () => {
  const call = { name: "t", input: {}, schema };
  for (const [edited, want] of [
    [{ to: "abc", n: 2 }, undefined],
    [{ to: "abc", n: 2, mode: "b", tags: ["x"] }, undefined],
    [{ to: "abc" }, /n is required/],
    [{ to: "ab", n: 2 }, /to must be at least 3 characters/],
    [{ to: "abc", n: 0 }, /n must be ≥ 1/],
    [{ to: "abc", n: 1.5 }, /n must be integer, not number/],
    [{ to: "abc", n: 2, mode: "c" }, /mode must be one of "a", "b"/],
    [{ to: "abc", n: 2, tags: [1] }, /tags\[0\] must be string/],
    [{ to: "abc", n: 2, cc: "x" }, /cc is not one of the tool's arguments/],
    [["abc"], /must be a JSON object/],
    ["abc", /must be a JSON object/],
    [null, /must be a JSON object/],
  ] as Array<[unknown, RegExp | undefined]>) {
    const got = editProblem(call, edited);
    if (want === undefined) assert.equal(got, undefined, JSON.stringify(edited));
    else assert.match(got ?? "", want, JSON.stringify(edited));
  }
  assert.match(editProblem({ name: "t", input: {}, editable: false }, { to: "abc", n: 2 }) ?? "", /cannot be edited here/);
  assert.equal(editProblem({ name: "t", input: {} }, { anything: true }), undefined, "without a schema any object goes");
});

test("schema refs, unions and booleans", () => {
  const s: JSONSchema = { $defs: { id: { type: "string", pattern: "^u[0-9]+$" } }, type: "object", properties: { who: { $ref: "#/$defs/id" }, v: { anyOf: [{ type: "string" }, { type: "null" }] } } };
  assert.deepEqual(validateSchema(s, { who: "u1", v: null }), []);
  assert.match(validateSchema(s, { who: "x" }).join(), /who must match/);
  assert.match(validateSchema(s, { who: "u1", v: 3 }).join(), /v matches none/);
  assert.deepEqual(validateSchema(true, 42), []);
  assert.match(validateSchema(false, 42).join(), /not allowed/);
});

test("Claude's tools map to hitl's operations as its hooks map them", () => {
  for (const [tool, input, opType, resource, editField] of [
    ["Bash", { command: "rm -rf build", description: "clean" }, "shell", "rm -rf build", "command"],
    ["Write", { file_path: "/a", content: "x" }, "file_write", "/a", "file_path"],
    ["Edit", { file_path: "/a" }, "file_write", "/a", "file_path"],
    ["Read", { file_path: "/a" }, "file_read", "/a", "file_path"],
    ["Grep", { pattern: "x", path: "/src" }, "file_read", "/src", "path"],
    ["WebFetch", { url: "https://x" }, "api_call", "https://x", "url"],
    ["Task", { subagent_type: "reviewer", description: "review" }, "spawn_agent", "reviewer", undefined],
    ["mcp__gh__delete_repo", { repo: "x" }, "api_call", "mcp__gh__delete_repo", undefined],
    ["Custom", { a: 1 }, "custom", '{"a":1}', undefined],
  ] as Array<[string, Record<string, unknown>, string, string, string | undefined]>) {
    const op = operationOf(tool, input);
    assert.deepEqual([op.opType, op.resource, op.editField], [opType, resource, editField], tool);
  }
  assert.equal(operationOf("Bash", { command: "ls", description: "list" }).action, "list: ls");
});

test("which calls are file writes: named for writing, with a path and its content, or declared", () => {
  for (const [name, input, declared, want] of [
    ["write_file", { path: "a.md", content: "x" }, undefined, { path: "path", content: "content" }],
    ["createFile", { file_path: "a.md", text: "" }, undefined, { path: "file_path", content: "text" }],
    ["save_note", { filename: "a.md", contents: "x", tags: [] }, undefined, { path: "filename", content: "contents" }],
    ["append_file", { path: "a.md", content: "x" }, undefined, undefined], // adds to the file: a whole-file diff would lie
    ["edit_file", { path: "a.md", content: "x" }, undefined, undefined],
    ["write_file", { path: "a.md" }, undefined, undefined], // no content
    ["write_file", { path: "", content: "x" }, undefined, undefined], // no path
    ["write_file", { path: 3, content: "x" }, undefined, undefined],
    ["send_email", { to: "a", body: "x" }, undefined, undefined], // not named for writing
    ["put_blob", { key: "a", blob: "x" }, { put_blob: { path: "key", content: "blob" } }, { path: "key", content: "blob" }],
    ["write_file", { path: "a.md", content: "x" }, { write_file: null }, undefined],
    ["put_blob", { key: 1, blob: "x" }, { put_blob: { path: "key", content: "blob" } }, undefined],
  ] as const) assert.deepEqual(fileWriteOf(name, input, declared as never), want, name);
});
