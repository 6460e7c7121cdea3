import { test } from "node:test";
import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { verifyWebhook, errorCode } from "../src/index.js";

const secret = "whsec_" + Buffer.from("a-webhook-secret-of-32-bytes!!!!").toString("base64");
const body = JSON.stringify({ type: "question.answered", timestamp: "2026-11-26T18:00:00Z", data: { id: "q_1", status: "answered" } });

function signed(at: Date, msgId = "msg_1", secretUsed = secret, payload = body): Record<string, string> {
  const sig = new Webhook(secretUsed).sign(msgId, at, payload);
  return { "webhook-id": msgId, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": sig };
}

function refused(f: () => unknown, why: RegExp) {
  assert.throws(f, (e: unknown) => errorCode(e) === "invalid_signature" && why.test((e as Error).message));
}

test("a delivery signed by standardwebhooks verifies and returns its body", () => {
  const ev = verifyWebhook<{ id: string }>(secret, signed(new Date()), body);
  assert.equal(ev.type, "question.answered");
  assert.equal(ev.data.id, "q_1");
  // fetch's Headers and a Buffer body work as well.
  assert.equal(verifyWebhook(secret, new Headers(signed(new Date())), Buffer.from(body)).type, "question.answered");
});

test("a tampered body fails", () => {
  refused(() => verifyWebhook(secret, signed(new Date()), body.replace("answered", "cancelled")), /no webhook-signature matches/);
});

test("an old timestamp fails, and one too far ahead", () => {
  refused(() => verifyWebhook(secret, signed(new Date(Date.now() - 6 * 60_000)), body), /too old/);
  refused(() => verifyWebhook(secret, signed(new Date(Date.now() + 6 * 60_000)), body), /future/);
  // Within the 5 minutes it verifies.
  verifyWebhook(secret, signed(new Date(Date.now() - 4 * 60_000)), body);
});

test("another secret fails; during a rotation one valid signature of several is enough", () => {
  const other = "whsec_" + Buffer.from("another-secret-another-secret!!!").toString("base64");
  refused(() => verifyWebhook(secret, signed(new Date(), "msg_2", other), body), /no webhook-signature matches/);
  const at = new Date();
  const h = signed(at, "msg_3", other);
  h["webhook-signature"] += " " + signed(at, "msg_3")["webhook-signature"];
  assert.equal(verifyWebhook(secret, h, body).type, "question.answered");
});

test("missing headers and a signature for another id fail", () => {
  const h = signed(new Date());
  refused(() => verifyWebhook(secret, { ...h, "webhook-signature": undefined }, body), /missing/);
  refused(() => verifyWebhook(secret, { ...h, "webhook-id": "msg_other" }, body), /no webhook-signature matches/);
});
