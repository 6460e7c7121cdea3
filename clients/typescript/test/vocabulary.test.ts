// One client vocabulary (docs/api.md#client-error-codes): the code (or
// Decision outcome) of each end of a wait, the same as the Go SDK's
// (agent/vocabulary_test.go) and Python's (clients/python/tests/test_vocabulary.py),
// against a real `hitl serve` (timeouts.min is 1s in the tests' config).
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { HitlError } from "../src/index.js";
import { Hitl } from "./hitl.js";

let hitl: Hitl;
before(async () => { hitl = await Hitl.start(); });
after(async () => { await hitl?.stop(); });

/** The code of the HitlError p rejects with (fails the test on success or another error type). */
async function codeOf(p: Promise<unknown>): Promise<HitlError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof HitlError, `want a HitlError, got ${e}`);
    return e;
  }
  assert.fail("want a HitlError, got success");
}

const run = () => `vocab-${randomUUID()}`;

describe("one client vocabulary", () => {
  test("a question that timed out on the service, without an answer or default: timed_out", async () => {
    const e = await codeOf(hitl.agent().ask("Anyone?", { timeout: 1, run: run() }));
    assert.equal(e.code, "timed_out", e.message);
  });

  test("an approval that timed out is the Decision outcome timed_out; a denied one is denied, not an error", async () => {
    const c = hitl.agent();
    const r = run();
    const d = await c.requestApproval("Slow one", { opType: "file_write", resource: "/tmp/slow.txt", timeout: 1, run: r });
    assert.equal(d.outcome, "timed_out");
    assert.equal(d.question?.status, "timeout");
    const denied = await c.requestApproval("Drop users", { opType: "drop_table", resource: "users", run: r });
    assert.equal(denied.outcome, "denied");
  });

  test("the client's own wait ran out with the question pending: deadline_exceeded, and the question stays pending", async () => {
    const c = hitl.agent();
    const r = run();
    const q = await c.ask("Later?", { wait: false, run: r });
    let e = await codeOf(c.wait(q.id, { timeout: 1 }));
    assert.equal(e.code, "deadline_exceeded", e.message);
    e = await codeOf(c.waitQuestion(q.id, { timeout: 1 }));
    assert.equal(e.code, "deadline_exceeded", e.message);
    assert.equal((await c.question(q.id)).status, "pending");

    const a = await c.approve("Write it", { opType: "file_write", resource: "/tmp/later.txt", run: r });
    assert.equal(a.decision, "ask");
    e = await codeOf(c.awaitApproval(a.questionId!, { timeout: 1 }));
    assert.equal(e.code, "deadline_exceeded", e.message);
    assert.equal((await c.question(a.questionId!)).status, "pending");
  });

  test("a cancelled question, and a run cancelled at a checkpoint: cancelled", async () => {
    const c = hitl.agent();
    const r = run();
    const q = await c.ask("Cancel me", { wait: false, run: r });
    await hitl.person().cancel(q.id, "not needed");
    assert.equal((await codeOf(c.wait(q.id))).code, "cancelled");

    await c.checkpoint(r, { iter: 1 });
    await hitl.person().call({
      method: "POST", path: "/api/topics/loop:control", replay: false,
      body: { schema: 0, type: "REQUEST", request_id: randomUUID(), command: "cancel", target: { run_id: r }, timestamp: "2026-01-01T00:00:00Z", payload: {} },
    });
    assert.equal((await codeOf(c.checkpoint(r, { iter: 2 }))).code, "cancelled");
  });

  for (const [timeout, bound] of [[0.5, "minimum of 1s (timeouts.min)"], [25 * 3600, "maximum of 24h (timeouts.max)"]] as const) {
    test(`a timeout of ${timeout}s is refused invalid, naming the ${bound}, before any question exists`, async () => {
      const c = hitl.agent();
      const r = run();
      let e = await codeOf(c.ask("Quick?", { timeout, run: r }));
      assert.equal(e.code, "invalid", e.message);
      assert.ok(e.message.includes(bound), e.message);
      e = await codeOf(c.requestApproval("deploy", { opType: "file_write", resource: "/tmp/deploy.txt", timeout, run: r }));
      assert.equal(e.code, "invalid", e.message);
      assert.ok(e.message.includes(bound), e.message);
      assert.deepEqual(await hitl.questions(r), []);
    });
  }
});
