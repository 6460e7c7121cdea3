// callbackUrl on ask and requestApproval, delivered by a real hitl serve's
// webhook worker to a receiver on loopback; home sent with shell and file
// operations.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { Webhook } from "standardwebhooks";
import { Client, errorCode, verifyWebhook, type Question } from "../src/index.js";
import { Hitl, AGENT_HOME, AGENT_TOKEN, CALLBACK_SECRET } from "./hitl.js";

let hitl: Hitl;
let receiver: Server;
let receiverURL: string;
const got: Array<{ headers: IncomingHttpHeaders; body: Buffer }> = [];
let arrived: () => void = () => {};

before(async () => {
  hitl = await Hitl.start();
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(204).end();
      arrived();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const a = receiver.address();
  receiverURL = `http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}/hook`;
});
after(async () => {
  receiver?.close();
  await hitl?.stop();
});

/** The delivery about question qid, waited for (30 s at most). */
async function deliveryOf(qid: string): Promise<{ headers: IncomingHttpHeaders; body: Buffer; event: { type: string; data: Question } }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    for (const d of got) {
      const event = verifyWebhook<Question>(CALLBACK_SECRET, d.headers, d.body);
      if (event.data.id === qid) return { ...d, event };
    }
    if (Date.now() > deadline) throw new Error(`no delivery of ${qid} in 30s`);
    await new Promise<void>((r) => {
      arrived = r;
      setTimeout(r, 1000); // bounded: checks the deadline
    });
  }
}

function agent(opts: { home?: string } = {}): Client {
  return new Client({ url: hitl.url, token: AGENT_TOKEN, ...opts });
}

describe("callbackUrl", () => {
  test("a question asked without waiting gets its answer as a signed delivery, once", async () => {
    const run = `cb-${Date.now()}`;
    const q = await agent().ask("Ship it?", { yesNo: true, run, wait: false, callbackUrl: receiverURL });
    assert.equal(q.callbackUrl, receiverURL);
    await hitl.answer(q.id, { value: true, text: "go" });
    const d = await deliveryOf(q.id);
    const lib = new Webhook(CALLBACK_SECRET).verify(d.body.toString(), d.headers as Record<string, string>) as { type: string };
    assert.equal(lib.type, "question.answered");
    assert.equal(d.event.data.response?.value, true);
    assert.equal(d.event.data.callbackUrl, receiverURL);
    const [del] = await hitl.settledDeliveries(q.id);
    assert.deepEqual([del.status, del.id, del.attempts], ["delivered", d.headers["webhook-id"], 1]);
    assert.equal(got.filter((x) => x.headers["webhook-id"] === del.id).length, 1);
  });

  test("requestApproval and approve send it; the approval is still decided", async () => {
    const run = `cb-${Date.now()}-a`;
    const pending = agent().requestApproval("Write the config", { opType: "file_write", input: { path: "/etc/app.conf", body: "x" }, run, callbackUrl: receiverURL });
    const q = await hitl.pending((x) => x.jobId === run);
    assert.equal(q.callbackUrl, receiverURL);
    await hitl.answer(q.id, { value: "approve" });
    const d = await pending;
    assert.deepEqual([d.outcome, d.questionId], ["approved", q.id]);
    assert.equal((await deliveryOf(q.id)).event.data.response?.value, "approve");

    const a = await agent().approve("Write the config", { opType: "file_write", input: { path: "/etc/app.conf", body: "y" }, run, callbackUrl: receiverURL });
    assert.equal(a.decision, "ask");
    await hitl.answer(a.questionId!, { value: "deny", text: "no" });
    assert.equal((await deliveryOf(a.questionId!)).event.data.response?.value, "deny");
  });

  for (const url of ["http://example.com/hook", "http://10.0.0.7/hook", "ftp://127.0.0.1/hook", "/hook"]) {
    test(`${url} is refused with invalid, and nothing is asked`, async () => {
      const run = `cb-${Date.now()}-refused`;
      await assert.rejects(agent().ask("Ship it?", { run, wait: false, callbackUrl: url }), (e) => errorCode(e) === "invalid");
      await assert.rejects(agent().requestApproval("Call the billing API", { opType: "api_call", run, callbackUrl: url }), (e) => errorCode(e) === "invalid");
      const r = await fetch(`${hitl.url}/api/questions/pending?jobId=${run}`, { headers: { Authorization: `Bearer ${AGENT_TOKEN}` } });
      assert.deepEqual(((await r.json()) as { questions: unknown[] }).questions, []);
    });
  }
});

describe("home", () => {
  const line = "printf done > ~/work/out.txt";

  test("~ in shell and file operations is decided with the agent's home", async () => {
    const c = agent({ home: AGENT_HOME + "/" });
    assert.equal(c.home, AGENT_HOME);
    assert.equal((await c.check("shell", line)).decision, "allow");
    assert.equal((await c.check("file_write", "~/work/out.txt")).decision, "allow");
    const d = await c.requestApproval("Write the result", { opType: "shell", resource: line, run: `home-${Date.now()}` });
    assert.deepEqual([d.outcome, d.by], ["approved", "policy"]);
    assert.notEqual((await c.check("shell", "printf done > ~/elsewhere.txt")).decision, "allow");
  });

  test("without it, or with another home, ~/work is not allowed", async () => {
    assert.notEqual((await agent({ home: "" }).check("shell", line)).decision, "allow");
    assert.notEqual((await agent({ home: "/home/someone" }).check("shell", line)).decision, "allow");
  });

  test("the default is HOME when it is absolute", async () => {
    const saved = process.env.HOME;
    try {
      process.env.HOME = AGENT_HOME;
      assert.equal((await agent().check("file_write", "~/work/out.txt")).decision, "allow");
      process.env.HOME = "relative/home";
      assert.equal(agent().home, undefined);
    } finally {
      process.env.HOME = saved;
    }
  });

  test("a home that is not an absolute path is refused", () => {
    assert.throws(() => agent({ home: "relative/home" }), (e) => errorCode(e) === "invalid");
  });
});
