import { createHmac, timingSafeEqual } from "node:crypto";
import { HitlError } from "./errors.js";

/** The headers of a delivery: a fetch Headers, or a plain object (node's IncomingHttpHeaders). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Seconds a delivery's timestamp may be off the clock (default 300). */
  toleranceSeconds?: number;
  /** The clock, in ms since the epoch (default Date.now). */
  now?: () => number;
}

/** A verified delivery's body: `{type, timestamp, data}`. */
export interface WebhookEvent<T = unknown> {
  type: string;
  timestamp: string;
  data: T;
  [k: string]: unknown;
}

function header(h: WebhookHeaders, name: string): string | undefined {
  if (typeof (h as Headers).get === "function") return (h as Headers).get(name) ?? undefined;
  const rec = h as Record<string, string | string[] | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : rec[key];
  return Array.isArray(v) ? v.join(" ") : v;
}

function bad(message: string): HitlError {
  return new HitlError("invalid_signature", message);
}

/**
 * Verifies a webhook delivery from hitl (Standard Webhooks): `webhook-id`,
 * `webhook-timestamp` (within 5 minutes of now) and `webhook-signature`, a
 * space-separated list of `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`
 * under the `whsec_…` secret (several during a secret rotation: one valid
 * is enough). The body must be the raw bytes received. Returns the parsed
 * body; throws HitlError `invalid_signature` otherwise.
 */
export function verifyWebhook<T = unknown>(secret: string, headers: WebhookHeaders, body: string | Uint8Array, opts: VerifyOptions = {}): WebhookEvent<T> {
  const key = secretKey(secret);
  const id = header(headers, "webhook-id");
  const ts = header(headers, "webhook-timestamp");
  const sigs = header(headers, "webhook-signature");
  if (!id || !ts || !sigs) throw bad("missing webhook-id, webhook-timestamp or webhook-signature header");
  if (!/^\d+$/.test(ts)) throw bad(`webhook-timestamp ${JSON.stringify(ts)} is not a number of seconds`);
  const now = Math.floor((opts.now ?? Date.now)() / 1000);
  const tolerance = opts.toleranceSeconds ?? 300;
  const t = Number(ts);
  if (t < now - tolerance) throw bad(`webhook-timestamp is too old: ${now - t}s ago (tolerance ${tolerance}s)`);
  if (t > now + tolerance) throw bad(`webhook-timestamp is too far in the future: in ${t - now}s (tolerance ${tolerance}s)`);
  const raw = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const expected = createHmac("sha256", key).update(`${id}.${ts}.`).update(raw).digest();
  let ok = false;
  for (const sig of sigs.split(" ")) {
    const comma = sig.indexOf(",");
    if (comma < 0 || sig.slice(0, comma) !== "v1") continue;
    const got = Buffer.from(sig.slice(comma + 1), "base64");
    if (got.length === expected.length && timingSafeEqual(got, expected)) ok = true;
  }
  if (!ok) throw bad("no webhook-signature matches the body under this secret");
  try {
    return JSON.parse(raw.toString("utf8")) as WebhookEvent<T>;
  } catch (e) {
    throw bad(`the signed body is not JSON: ${(e as Error).message}`);
  }
}

/** Signs body as hitl does (for tests and for relaying): the three headers. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string | Uint8Array): Record<string, string> {
  const raw = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const sig = createHmac("sha256", secretKey(secret)).update(`${id}.${timestampSeconds}.`).update(raw).digest("base64");
  return { "webhook-id": id, "webhook-timestamp": String(timestampSeconds), "webhook-signature": `v1,${sig}` };
}

function secretKey(secret: string): Buffer {
  const b64 = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  if (!b64 || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw new HitlError("invalid", "webhook secret must be whsec_ followed by base64");
  return Buffer.from(b64, "base64");
}
