// The resume example end to end: a real hitl serve, an OpenAI-compatible
// model on loopback, the run saved when it needs a person, the person's
// answer through hitl's API, then hitl's own webhook worker delivering the
// signed outcome to the approval's callbackUrl (the handler on loopback),
// which verifies it and resumes the run. Tampered and old deliveries are
// signed locally with the standardwebhooks package.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, tool, setTracingDisabled, OpenAIChatCompletionsModel } from "@openai/agents";
import OpenAI from "openai";
import { Webhook } from "standardwebhooks";
import { z } from "zod";
import { Client } from "@hitl/client";
import { needsApproval } from "@hitl/client/openai-agents";
// The client package's own test helpers (a hitl serve built from this
// commit, a fake model), as its `npm test` compiled them.
import type * as HitlHarness from "../../../clients/typescript/dist-test/test/hitl.js";
import type * as ModelHarness from "../../../clients/typescript/dist-test/test/fakemodel.js";
const helpers = (f: string) => new URL(`../../../../clients/typescript/dist-test/test/${f}`, import.meta.url).href;
const { Hitl, AGENT_TOKEN, CALLBACK_SECRET } = (await import(helpers("hitl.js"))) as typeof HitlHarness;
const { fakeOpenAI } = (await import(helpers("fakemodel.js"))) as typeof ModelHarness;
type Hitl = HitlHarness.Hitl;
type FakeOpenAI = ModelHarness.FakeOpenAI;
import { fileStore, start, webhookHandler, type Outcome } from "../resume-webhook.js";

const secret = CALLBACK_SECRET; // what the test's hitl serve signs callbackUrl deliveries with
let hitl: Hitl, model: FakeOpenAI, receiver: Server, receiverURL: string, dir: string;
const deployed: string[] = [];
const outcomes: Outcome[] = [];

function agentClient(run: string): Client {
  return new Client({ url: hitl.url, token: AGENT_TOKEN, run });
}

function makeAgent(client: Client) {
  const deploy = tool({
    name: "deploy", description: "Deploy a version to an environment",
    parameters: z.object({ version: z.string(), env: z.string() }),
    needsApproval: needsApproval(client, "deploy"),
    execute: async ({ version, env }) => { deployed.push(`${version}@${env}`); return `deployed ${version} to ${env}`; },
  });
  return new Agent({ name: "deployer", instructions: "deploy", tools: [deploy], model: new OpenAIChatCompletionsModel(new OpenAI({ baseURL: model.url, apiKey: "k" }), "fake") });
}

before(async () => {
  setTracingDisabled(true);
  hitl = await Hitl.start();
  model = await fakeOpenAI("deploy", { version: "v42", env: "production" });
  dir = mkdtempSync(join(tmpdir(), "hitl-example-"));
  const client = agentClient("deploy-42");
  receiver = createServer(webhookHandler({ agent: makeAgent(client), client, store: fileStore(dir), secret, onOutcome: (o) => outcomes.push(o) }));
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const a = receiver.address();
  receiverURL = `http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}/hitl`;
});
after(async () => {
  receiver?.close();
  await model?.close();
  await hitl?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function deliver(body: string, headers: Record<string, string>) {
  const r = await fetch(receiverURL, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  return { status: r.status, body: await r.json() };
}

function signed(body: string, at = new Date(), id = "msg_1") {
  return { "webhook-id": id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": new Webhook(secret).sign(id, at, body) };
}

test("the run saves its state, ends, and is resumed by the signed webhook of the person's answer", async () => {
  const client = agentClient("deploy-42");
  const agent = makeAgent(client);
  const first = await start(agent, "Deploy v42 to production", { client, store: fileStore(dir), run: "deploy-42" });
  assert.ok("waitingOn" in first, "the run should wait for a person");
  assert.equal(first.waitingOn.length, 1);
  assert.deepEqual(deployed, [], "nothing deployed before anyone approved");
  assert.equal(readdirSync(dir).length, 1, "the state is saved");

  const q = await hitl.pending((x) => x.id === first.waitingOn[0]);
  assert.equal(q.operation?.resource, '{"version":"v42","env":"production"}');
  const answered = await hitl.answer(q.id, { value: "approve", text: "go" });
  const body = JSON.stringify({ type: "question.answered", timestamp: new Date().toISOString(), data: answered });

  // A tampered body and an old timestamp are refused; nothing resumes.
  assert.equal((await deliver(body.replace('"go"', '"no"'), signed(body))).status, 401);
  assert.equal((await deliver(body, signed(body, new Date(Date.now() - 10 * 60_000)))).status, 401);
  assert.deepEqual(deployed, []);

  const r = await deliver(body, signed(body));
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { finalOutput: "done: deployed v42 to production" });
  assert.deepEqual(deployed, ["v42@production"]);
  assert.deepEqual(outcomes, [{ finalOutput: "done: deployed v42 to production" }]);

  // At least once: the same delivery again resumes nothing twice.
  const again = await deliver(body, signed(body));
  assert.deepEqual(again, { status: 200, body: { resumed: false } });
  assert.deepEqual(deployed, ["v42@production"]);
});

test("hitl delivers the approval to the callbackUrl; the run resumes and the tool runs once", async () => {
  deployed.length = 0;
  outcomes.length = 0;
  const client = agentClient("deploy-44");
  const first = await start(makeAgent(client), "Deploy v44", { client, store: fileStore(dir), run: "deploy-44", callbackUrl: receiverURL });
  assert.ok("waitingOn" in first, "the run should wait for a person");
  const [qid] = first.waitingOn;
  const q = await hitl.pending((x) => x.id === qid);
  assert.equal(q.callbackUrl, receiverURL);
  assert.deepEqual(deployed, []);
  await hitl.answer(qid, { value: "approve", text: "ship" });

  // hitl's worker POSTs the signed question.answered; the handler answers
  // 200 once the run resumed, and hitl marks the delivery delivered.
  const [d] = await hitl.settledDeliveries(qid);
  assert.deepEqual([d.status, d.attempts, d.url], ["delivered", 1, receiverURL]);
  assert.deepEqual(deployed, ["v42@production"]);
  assert.deepEqual(outcomes, [{ finalOutput: "done: deployed v42 to production" }]);

  // A replay (same webhook-id) resumes nothing: the tool ran exactly once.
  const again = await hitl.replay(d.seq);
  assert.equal(again.id, d.id);
  const settled = await hitl.settledDeliveries(qid);
  assert.deepEqual(settled.map((x) => x.status), ["delivered", "delivered"]);
  assert.deepEqual(deployed, ["v42@production"]);
  assert.equal(outcomes.length, 1);
});

test("a denial resumes the run with the reason, and nothing is deployed", async () => {
  deployed.length = 0;
  const client = agentClient("deploy-43");
  const first = await start(makeAgent(client), "Deploy v43", { client, store: fileStore(dir), run: "deploy-43" });
  assert.ok("waitingOn" in first);
  const answered = await hitl.answer(first.waitingOn[0], { value: "deny", text: "freeze until Monday" });
  const body = JSON.stringify({ type: "question.answered", timestamp: new Date().toISOString(), data: answered });
  const r = await deliver(body, signed(body, new Date(), "msg_2"));
  assert.equal(r.status, 200);
  assert.match(String((r.body as { finalOutput?: string }).finalOutput), /freeze until Monday/);
  assert.deepEqual(deployed, []);
});
