/**
 * The event stream: GET /api/events read as server-sent events, resumed
 * with Last-Event-ID at the next replica after a cut (a restart, a
 * failover), so no event is missed or repeated.
 */
import type { HitlEvent } from "../types.js";
import { HitlError, errorOf } from "./errors.js";
import { ReplicaDown, describe, isDown, type Transport } from "./transport.js";

/** Client.events' options. */
export interface StreamOptions {
  after?: string;
  signal?: AbortSignal;
}

/** The events of GET /api/events, reconnecting after a cut until the signal aborts or the caller breaks. */
export async function* eventStream(t: Transport, opts: StreamOptions): AsyncGenerator<HitlEvent> {
  let last = opts.after;
  const backoff = t.backoff();
  for (;;) {
    const ctl = new AbortController();
    const onAbort = () => ctl.abort(opts.signal?.reason);
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const headers = t.headers("GET", false);
      headers["Accept"] = "text/event-stream";
      if (last !== undefined) headers["Last-Event-ID"] = last;
      const query = last !== undefined ? `?after=${encodeURIComponent(last)}` : "";
      const base = t.urls[t.cur];
      let res: globalThis.Response;
      try {
        res = await t.fetchFn(base + "/api/events" + query, { headers, signal: ctl.signal });
      } catch (e) {
        if (opts.signal?.aborted) return;
        t.failed(t.cur);
        throw new ReplicaDown(new HitlError("unavailable", `cannot reach hitl at ${base}: ${describe(e)}`), false);
      }
      if (!res.ok) {
        const err = await errorOf(res);
        if (isDown(res.status)) { t.failed(t.cur); throw new ReplicaDown(err, true); }
        if (err.code === "rate_limited" || err.code === "too_many_streams") {
          await t.sleep(Math.max(err.retryAfter ?? 1, 1) * 1000, opts.signal);
          continue;
        }
        throw err;
      }
      for await (const ev of parseSSE(res.body!)) {
        backoff.reset(); // the stream carries events: a later cut reconnects at once
        if (ev.id) last = ev.id;
        if (!ev.data) continue;
        let data: Record<string, unknown>;
        try { data = JSON.parse(ev.data); } catch { continue; }
        yield { ...data, id: ev.id ?? last ?? "", type: (data.type as string) ?? ev.event ?? "message" } as HitlEvent;
      }
    } catch (e) {
      if (opts.signal?.aborted) return;
      if (!(e instanceof ReplicaDown) && !isStreamCut(e)) throw e;
    } finally {
      opts.signal?.removeEventListener("abort", onAbort);
      ctl.abort();
    }
    try { await t.sleep(backoff.next(), opts.signal); } catch { return; }
  }
}

/** A stream cut by the other side (undici's "terminated", a reset socket). */
function isStreamCut(e: unknown): boolean {
  return e instanceof TypeError || (e instanceof Error && /terminated|socket|ECONNRESET|other side closed/i.test(e.message + String((e as { cause?: unknown }).cause ?? "")));
}

/** One server-sent event. */
export interface SSEFrame { id?: string; event?: string; data?: string }

/** Parses a text/event-stream body into frames. */
export async function* parseSSE(body: ReadableStream<Uint8Array>): AsyncGenerator<SSEFrame> {
  const dec = new TextDecoder();
  let buf = "";
  let frame: SSEFrame = {};
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf.startsWith("\r\n", nl) ? 2 : 1));
        if (line === "") {
          if (frame.data !== undefined || frame.id !== undefined) yield frame;
          frame = {};
          continue;
        }
        if (line.startsWith(":")) continue;
        const i = line.indexOf(":");
        const field = i < 0 ? line : line.slice(0, i);
        let val = i < 0 ? "" : line.slice(i + 1);
        if (val.startsWith(" ")) val = val.slice(1);
        if (field === "data") frame.data = frame.data === undefined ? val : frame.data + "\n" + val;
        else if (field === "id") frame.id = val;
        else if (field === "event") frame.event = val;
      }
    }
  } finally {
    reader.releaseLock();
  }
}
