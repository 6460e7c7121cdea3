import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { Client, HitlError, errorCode } from "../src/index.js";
import { Hitl, AGENT_TOKEN, freePort } from "./hitl.js";

let hitl: Hitl;
before(async () => { hitl = await Hitl.start(); });
after(async () => { await hitl?.stop(); });

async function rejects(p: Promise<unknown>, code: string): Promise<HitlError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof HitlError, `want a HitlError ${code}, got ${e}`);
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`want a HitlError ${code}, got success`);
}

describe("ask", () => {
  test("a text answer comes back as the person typed it", async () => {
    const c = hitl.agent({ run: "ask-text" });
    const p = c.ask("Which database?");
    const q = await hitl.pending((q) => q.jobId === "ask-text");
    await hitl.answer(q.id, { value: "staging" });
    assert.equal(await p, "staging");
  });

  test("a choice is the option's value, multi a list, yesNo a boolean", async () => {
    const c = hitl.agent({ run: "ask-shapes" });
    const one = c.ask("Region?", { options: ["eu", { label: "United States", value: "us" }] });
    const q1 = await hitl.pending((q) => q.question === "Region?");
    assert.equal(q1.responseType, "choice");
    await hitl.answer(q1.id, { value: "United States" });
    assert.equal(await one, "us");

    const many = c.ask("Checks?", { options: ["lint", "test", "vet"], multi: true });
    const q2 = await hitl.pending((q) => q.question === "Checks?");
    await hitl.answer(q2.id, { value: ["vet", "lint"] });
    assert.deepEqual(await many, ["lint", "vet"]);

    const yn = c.ask("Deploy?", { yesNo: true });
    const q3 = await hitl.pending((q) => q.question === "Deploy?");
    await hitl.answer(q3.id, { value: "no" });
    assert.equal(await yn, false);
  });

  test("wait: false returns the question; wait(id) its answer", async () => {
    const c = hitl.agent({ run: "ask-nowait" });
    const q = await c.ask("Later?", { wait: false });
    assert.match(q.id, /^q_/);
    assert.equal(q.status, "pending");
    await hitl.answer(q.id, { value: "now" });
    assert.equal(await c.wait(q.id), "now");
  });

  test("no answer and no default times out; with a default, the default", async () => {
    const c = hitl.agent({ run: "ask-timeout" });
    await rejects(c.ask("Anyone?", { timeout: 1 }), "timed_out");
    assert.equal(await c.ask("Anyone else?", { timeout: 1, yesNo: true, default: true }), true);
  });

  test("a cancelled question throws cancelled with the reason", async () => {
    const c = hitl.agent({ run: "ask-cancel" });
    const p = c.ask("Cancel me?");
    const q = await hitl.pending((q) => q.jobId === "ask-cancel");
    await hitl.person().cancel(q.id, "wrong run");
    const e = await rejects(p, "cancelled");
    assert.match(e.message, /wrong run/);
  });

  test("the same key finds the same question until its outcome is taken", async () => {
    const c = hitl.agent({ run: "ask-key" });
    const a = await c.ask("Keyed?", { key: "k1", wait: false });
    const b = await c.ask("Keyed?", { key: "k1", wait: false });
    assert.equal(a.id, b.id);
    await hitl.answer(a.id, { value: "yes" });
    assert.equal(await c.ask("Keyed?", { key: "k1" }), "yes");
    const next = await c.ask("Keyed?", { key: "k1", wait: false });
    assert.notEqual(next.id, a.id, "a taken outcome frees the key");
    await c.cancel(next.id);
  });

  test("a sensitive answer reaches the asker once and is never shown", async () => {
    const c = hitl.agent({ run: "ask-secret" });
    const p = c.ask("API key?", { sensitive: true });
    const q = await hitl.pending((q) => q.jobId === "ask-secret");
    await hitl.answer(q.id, { value: "s3cret-value" });
    assert.equal(await p, "s3cret-value");
    const seen = await hitl.person().question(q.id);
    assert.notEqual(seen.response?.value, "s3cret-value");
  });

  test("the default run is ts-$USER@PRINCIPAL", async () => {
    const c = hitl.agent();
    const run = await c.defaultRun();
    assert.match(run, /^ts-.+@api:agent$/);
  });

  test("nobody answers their own question: forbidden", async () => {
    const c = hitl.agent({ run: "ask-own" });
    const q = await c.ask("Mine?", { wait: false });
    await rejects(c.answer(q.id, { value: "x" }), "forbidden");
    await c.cancel(q.id);
  });

  test("bad input is the API's invalid, a wrong token unauthorized", async () => {
    await rejects(hitl.agent({ run: "bad" }).ask("", {}), "invalid");
    await rejects(new Client({ url: hitl.url, token: "not-a-token-0123456789", run: "x" }).ask("hi?"), "unauthorized");
    assert.throws(() => new Client({ url: "ftp://x" }), (e: unknown) => errorCode(e) === "invalid");
  });
});

describe("requestApproval", () => {
  test("the policy's allow returns at once, by policy, without asking", async () => {
    const d = await hitl.agent({ run: "appr" }).requestApproval("Look up the user", { opType: "lookup", input: { id: 7 } });
    assert.deepEqual(d, { outcome: "approved", by: "policy", rule: "lookups-are-safe" });
  });

  test("the policy's deny returns at once, with its rule", async () => {
    const d = await hitl.agent({ run: "appr" }).requestApproval("Drop users", { opType: "drop_table", resource: "users" });
    assert.equal(d.outcome, "denied");
    assert.equal(d.by, "policy");
    assert.match(d.reason!, /never-drop-tables/);
  });

  test("ask: approved with a message, denied with a reason, edited with the input", async () => {
    const c = hitl.agent({ run: "appr-ask" });
    let p = c.requestApproval("Write the config", { opType: "file_write", input: { path: "/etc/app.conf", body: "x" }, reason: "the user asked" });
    let q = await hitl.pending((q) => q.question === "Write the config");
    assert.equal(q.operation?.resource, '{"path":"/etc/app.conf","body":"x"}');
    assert.equal(q.operation?.context, "the user asked");
    await hitl.answer(q.id, { value: "approve", text: "go ahead" });
    let d = await p;
    assert.equal(d.outcome, "approved");
    assert.equal(d.message, "go ahead");
    assert.equal(d.by, "api:person");

    p = c.requestApproval("Write it again", { opType: "file_write", input: { path: "/etc/app.conf" } });
    q = await hitl.pending((q) => q.question === "Write it again");
    await hitl.answer(q.id, { value: "deny", text: "not today" });
    d = await p;
    assert.equal(d.outcome, "denied");
    assert.equal(d.reason, "not today");

    p = c.requestApproval("Write elsewhere", { opType: "file_write", input: { path: "/etc/app.conf" } });
    q = await hitl.pending((q) => q.question === "Write elsewhere");
    await hitl.answer(q.id, { value: "approve", edited: '{"path":"/tmp/app.conf"}' });
    d = await p;
    assert.equal(d.outcome, "edited");
    assert.deepEqual(d.editedInput, { path: "/tmp/app.conf" });
  });

  test("a reply in words: responded, not allowed, the text in message", async () => {
    const c = hitl.agent({ run: "appr-reply" });
    const p = c.requestApproval("Migrate the db", { opType: "db_migrate", resource: "prod" });
    const q = await hitl.pending((q) => q.question === "Migrate the db");
    await hitl.answer(q.id, { value: "reply", text: "use the staging database instead" });
    const d = await p;
    assert.deepEqual([d.outcome, d.message, d.reason, d.by], ["responded", "use the staging database instead", undefined, "api:person"]);
  });

  test("an approval nobody answers times out", async () => {
    // 0.5 s is below the service's minimum (1 s here): the service's clamped timeout decides, not the client.
    const d = await hitl.agent({ run: "appr-to" }).requestApproval("Slow one", { opType: "file_write", resource: "/tmp/x", timeout: 1 });
    assert.equal(d.outcome, "timed_out");
    assert.equal(d.question?.status, "timeout", "the approval itself timed out");
  });

  test("check decides without asking", async () => {
    const c = hitl.agent({ run: "chk" });
    assert.equal((await c.check("lookup", "anything")).decision, "allow");
    assert.equal((await c.check("drop_table", "users")).decision, "deny");
    assert.equal((await c.check("file_delete", "/tmp/x")).decision, "ask");
  });
});

describe("steering", () => {
  test("checkpoint runs, done ends the run and cancels what it asked", async () => {
    const c = hitl.agent({ run: "steer-1" });
    const cp = await c.checkpoint("steer-1", { iter: 1, max: 3 });
    assert.equal(cp.status, "running");
    const p = c.ask("Still there?");
    p.catch(() => {}); // it rejects while done() is awaited: checked below
    await hitl.pending((q) => q.jobId === "steer-1");
    const done = await c.done("steer-1");
    assert.equal(done.status, "done");
    await rejects(p, "cancelled");
    await rejects(c.checkpoint("steer-1", { iter: 2 }), "cancelled");
  });

  test("checkpoint waits while the run is paused and hands over a redirect once resumed", async () => {
    let checkpoints = 0;
    // Long polls of 1 s: the service answers "paused" each second and the client asks again.
    const c = new Client({ url: hitl.url, token: AGENT_TOKEN, run: "steer-3", pollWaitSeconds: 1,
      fetch: (u, init) => { if (String(u).includes("/checkpoint")) checkpoints++; return fetch(u, init); } });
    await c.checkpoint("steer-3", { iter: 1 });
    const control = (command: string, payload: Record<string, string> = {}) => hitl.person().call({
      method: "POST", path: "/api/topics/loop:control", replay: false,
      body: { schema: 0, type: "REQUEST", request_id: crypto.randomUUID(), command, target: { run_id: "steer-3" }, timestamp: new Date().toISOString().replace(/\.\d+Z$/, "Z"), payload },
    });
    await control("pause");
    let settled = false;
    const p = c.checkpoint("steer-3", { iter: 2 }).finally(() => { settled = true; });
    await control("redirect", { instruction: "use staging" });
    for (const deadline = Date.now() + 10_000; checkpoints < 4 && !settled;) {
      assert.ok(Date.now() < deadline, "the client did not ask again while the run stayed paused");
      await new Promise((r) => setTimeout(r, 20)); // poll interval, bounded by the deadline
    }
    assert.equal(settled, false, "a paused run's checkpoint returned before resume");
    await control("resume");
    const cp = await p;
    assert.equal(cp.status, "running");
    assert.equal(cp.instruction, "use staging");
  });

  test("abort needs a reason", async () => {
    const c = hitl.agent({ run: "steer-2" });
    await rejects(c.abort("steer-2", " "), "invalid");
    await c.checkpoint("steer-2");
    assert.equal((await c.abort("steer-2", "tests keep failing")).status, "aborted");
  });
});

describe("events", () => {
  test("the stream replays from an id and carries new events", async () => {
    const c = hitl.agent({ run: "ev-1" });
    const q = await c.ask("Evented?", { wait: false });
    const ctl = new AbortController();
    const seen: string[] = [];
    for await (const ev of c.events({ after: "0", signal: ctl.signal })) {
      if (ev.questionId !== q.id) continue;
      seen.push(ev.type);
      if (ev.type === "question_asked") await hitl.answer(q.id, { value: "yes" });
      if (ev.type === "question_answered") break;
    }
    assert.deepEqual(seen.slice(0, 1), ["question_asked"]);
    assert.ok(seen.includes("question_answered"));
  });
});

describe("resilience", () => {
  test("a wait survives a restart of the service", async () => {
    const h = await Hitl.start();
    try {
      const c = h.agent({ run: "restart" });
      const p = c.ask("Survive?");
      const q = await h.pending((q) => q.jobId === "restart");
      await h.kill();
      await h.boot();
      await h.answer(q.id, { value: "survived" });
      assert.equal(await p, "survived");
    } finally {
      await h.stop();
    }
  });

  test("the event stream resumes after a restart with Last-Event-ID: nothing missed, nothing twice", { timeout: 30_000 }, async () => {
    const h = await Hitl.start();
    try {
      const c = h.agent({ run: "ev-restart" });
      const q1 = await c.ask("Before?", { wait: false });
      const ctl = new AbortController();
      const ids: string[] = [];
      let q2 = "";
      for await (const ev of c.events({ after: "0", signal: ctl.signal })) {
        if (ev.type !== "question_asked") continue;
        ids.push(ev.id);
        if (ev.questionId === q1.id) {
          await h.kill();
          await h.boot();
          q2 = (await c.ask("After?", { wait: false })).id;
        }
        if (ev.questionId === q2) break;
      }
      assert.equal(ids.length, 2, `events: ${ids}`);
      assert.equal(new Set(ids).size, 2);
    } finally {
      await h.stop();
    }
  });

  test("two URLs, the first dead: the client fails over", async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const c = new Client({ url: `${dead},${hitl.url}`, token: AGENT_TOKEN, run: "failover" });
    const p = c.ask("Over there?");
    const q = await hitl.pending((q) => q.jobId === "failover");
    assert.match(q.idempotencyKey as string, /^failover:/, "a create with several URLs carries a key");
    await hitl.answer(q.id, { value: "yes" });
    assert.equal(await p, "yes");
    assert.equal(c.urls.length, 2);
  });

  test("429: the client waits Retry-After and succeeds", async () => {
    const h = await Hitl.start({ yaml: "rate_limits: {token_per_minute: 60, run_per_minute: 0}\n" });
    try {
      const statuses: number[] = [];
      const waits: number[] = [];
      const c = new Client({
        url: h.url, token: AGENT_TOKEN, run: "rl",
        fetch: async (i, init) => { const r = await fetch(i, init); statuses.push(r.status); return r; },
        sleep: (ms) => { waits.push(ms); return new Promise((r) => setTimeout(r, ms)); },
      });
      const qs = [];
      for (let i = 0; i < 12; i++) qs.push(await c.ask(`q${i}?`, { wait: false }));
      assert.equal(qs.length, 12);
      assert.ok(statuses.includes(429), `no 429 seen: ${statuses}`);
      assert.ok(waits.some((w) => w >= 1000), `did not wait Retry-After: ${waits}`);
    } finally {
      await h.stop();
    }
  });
});
