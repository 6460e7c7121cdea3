// The package's public surface: the names @hitl/client exports at run time
// and the public members of Client. A split of the internals (src/core/)
// must not drop or rename any of them.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as hitl from "../src/index.js";
import * as errors from "../src/errors.js";
import { Client } from "../src/client.js";

test("@hitl/client exports the same names", () => {
  assert.deepEqual(Object.keys(hitl).sort(), [
    "Client", "HitlError", "actionOf", "approveTool", "checkTool", "editDiff", "editNote", "editProblem", "errorCode",
    "fileWriteOf", "opTypeOf", "replyMessage", "resourceOf", "respondTool", "signWebhook", "unified", "validateSchema",
    "verifyWebhook", "writeDiff",
  ]);
  // The adapters import the error type from ./errors.js: it is the one type, not a copy.
  assert.equal(errors.HitlError, hitl.HitlError);
  assert.deepEqual(Object.keys(errors).sort(), ["HitlError", "codeOfStatus", "errorCode"]);
});

test("Client keeps its public methods", () => {
  const methods = Object.getOwnPropertyNames(Client.prototype).filter((m) => m !== "constructor" && !["create", "settle", "longPoll", "question2", "publish"].includes(m)).sort();
  assert.deepEqual(methods, [
    "abort", "answer", "approve", "awaitApproval", "call", "cancel", "check", "checkpoint", "defaultRun", "done",
    "events", "ask", "question", "requestApproval", "wait", "waitQuestion", "whoami",
  ].sort());
  const c = new Client({ url: "http://127.0.0.1:1, http://127.0.0.1:2/", token: "t", home: "/home/a//" });
  assert.deepEqual(c.urls, ["http://127.0.0.1:1", "http://127.0.0.1:2"]);
  assert.equal(c.token, "t");
  assert.equal(c.home, "/home/a");
});
