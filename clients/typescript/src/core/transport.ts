/**
 * The transport: one API call sent with fetch to the replica in use and,
 * when it is not answering, to the next ones as far as the request may be
 * repeated; 429 waits Retry-After; an empty, cut or non-JSON 2xx is a
 * transport failure like a refused connection. The public Client (client.ts)
 * and the event stream (streaming.ts) send everything through here.
 */
import { HitlError, errorCode, errorOf } from "./errors.js";

type Body = Record<string, unknown> | undefined;

/** One raw API call (Client.call). */
export interface ApiCall {
  method: string;
  path: string;
  query?: Record<string, string>;
  body?: Body;
  /** May be sent again at the next replica after it may have reached a failed one. */
  replay: boolean;
  signal?: AbortSignal;
}

/** What the transport is built from (the transport fields of ClientOptions). */
export interface TransportOptions {
  url?: string | string[];
  token?: string;
  fetch?: typeof fetch;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** A failure of one replica: its connection refused or cut, or 502/503/504. */
export class ReplicaDown extends Error {
  constructor(readonly err: HitlError, readonly sent: boolean) { super(err.message); }
}

/** Doubling waits between minBackoff and maxBackoff. */
export class Backoff {
  private cur: number;
  constructor(private readonly min: number, private readonly max: number) { this.cur = min; }
  /** The wait to take now; the next one is twice as long, up to max. */
  next(): number {
    const d = this.cur;
    this.cur = Math.min(this.cur * 2, this.max);
    return d;
  }
  reset(): void { this.cur = this.min; }
}

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const t = setTimeout(() => { signal?.removeEventListener("abort", onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(t); reject(abortError(signal!)); };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

export function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("aborted", "AbortError");
}

export function env(name: string): string | undefined {
  const p = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return p?.env?.[name];
}

export function randomId(): string {
  return globalThis.crypto.randomUUID();
}

export class Transport {
  readonly urls: string[];
  readonly token?: string;
  /** The replica in use (an index of urls). */
  cur = 0;
  readonly fetchFn: typeof fetch;
  readonly minBackoff: number;
  readonly maxBackoff: number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(opts: TransportOptions = {}) {
    const list = Array.isArray(opts.url) ? opts.url.join(",") : (opts.url ?? env("HITL_URL") ?? "http://127.0.0.1:7070");
    this.urls = list.split(",").map((u) => u.trim().replace(/\/+$/, "")).filter((u) => u !== "");
    if (this.urls.length === 0) throw new HitlError("invalid", "no hitl URL: set HITL_URL or pass url");
    for (const u of this.urls) {
      if (!/^https?:\/\/[^/]/.test(u)) throw new HitlError("invalid", `hitl URL ${JSON.stringify(u)} is not an http(s) URL`);
    }
    this.token = opts.token ?? env("HITL_TOKEN") ?? undefined;
    if (this.token === "") this.token = undefined;
    this.fetchFn = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.minBackoff = opts.minBackoffMs ?? 100;
    this.maxBackoff = Math.max(opts.maxBackoffMs ?? 5000, this.minBackoff);
    this.sleep = opts.sleep ?? defaultSleep;
  }

  backoff(): Backoff {
    return new Backoff(this.minBackoff, this.maxBackoff);
  }

  /** Calls f until it succeeds or fails with an error that is not retryable (or signal aborts). */
  async retrying<T>(f: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const b = this.backoff();
    for (;;) {
      try {
        return await f();
      } catch (e) {
        if (signal?.aborted || !retryable(e)) throw e;
        await this.sleep(b.next(), signal);
      }
    }
  }

  headers(method: string, hasBody: boolean): Record<string, string> {
    const h: Record<string, string> = { Accept: "application/json" };
    if (hasBody || method !== "GET") h["Content-Type"] = "application/json";
    if (this.token) h["Authorization"] = `Bearer ${this.token}`;
    return h;
  }

  /** Replica i failed: the next call starts at the one after it. */
  failed(i: number): void {
    if (this.cur === i) this.cur = (i + 1) % this.urls.length;
  }

  /**
   * One API call: sent to the replica in use and, when it is not answering,
   * to the next ones as far as the request may be repeated (`replay`); a 429
   * rate_limited waits Retry-After and sends it again. Returns the decoded JSON.
   */
  async call<T>(a: ApiCall): Promise<T> {
    for (;;) {
      try {
        return await this.sendAny<T>(a);
      } catch (e) {
        if (errorCode(e) !== "rate_limited" || a.signal?.aborted) throw e;
        await this.sleep(Math.max((e as HitlError).retryAfter ?? 1, 1) * 1000, a.signal);
      }
    }
  }

  private async sendAny<T>(a: ApiCall): Promise<T> {
    const n = this.urls.length;
    const start = this.cur;
    let err: unknown;
    for (let i = 0; i < n; i++) {
      const at = (start + i) % n;
      try {
        return await this.send<T>(this.urls[at], a);
      } catch (e) {
        if (!(e instanceof ReplicaDown)) throw e;
        err = e.err;
        if (a.signal?.aborted) throw abortError(a.signal);
        this.failed(at);
        if (e.sent && !a.replay) break;
      }
    }
    throw err;
  }

  private async send<T>(base: string, a: ApiCall): Promise<T> {
    let url = base + a.path;
    if (a.query) url += "?" + new URLSearchParams(a.query).toString();
    const hasBody = a.body !== undefined;
    let res: globalThis.Response;
    try {
      res = await this.fetchFn(url, { method: a.method, headers: this.headers(a.method, hasBody), body: hasBody ? JSON.stringify(a.body) : undefined, signal: a.signal });
    } catch (e) {
      if (a.signal?.aborted) throw abortError(a.signal);
      throw new ReplicaDown(new HitlError("unavailable", `cannot reach hitl at ${base}: ${describe(e)}`, { cause: e }), !refused(e));
    }
    if (res.status >= 300) {
      const err = await errorOf(res);
      if (isDown(res.status)) throw new ReplicaDown(err, true);
      throw err;
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      if (a.signal?.aborted) throw abortError(a.signal);
      throw new ReplicaDown(new HitlError("unavailable", `reading the answer of ${a.method} ${a.path}: ${describe(e)}`, { cause: e }), true);
    }
    // Every hitl endpoint answers a 2xx with a JSON object: an empty, cut
    // or non-JSON one (a service on its way out, a proxy) is a transport
    // failure, which the request's retry rules apply to.
    let body: unknown;
    try { body = JSON.parse(text); } catch { body = undefined; }
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw new ReplicaDown(new HitlError("unavailable", `hitl answered ${a.method} ${a.path} with ${res.status} but ${text ? "not the JSON object it documents" : "an empty body"}`, { status: res.status }), true);
    }
    return body as T;
  }
}

/** 502, 503, 504: the replica is down (or on its way out), another may answer. */
export function isDown(status: number): boolean {
  return status === 502 || status === 503 || status === 504;
}

/** An error a wait outlives: the service could not be reached or failed. */
export function retryable(e: unknown): boolean {
  const c = errorCode(e);
  return c === "unavailable" || c === "internal";
}

/** fetch's error with its cause's code, for a message. */
export function describe(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
  const base = e instanceof Error ? e.message : String(e);
  return cause?.code ? `${base} (${cause.code})` : cause?.message ? `${base} (${cause.message})` : base;
}

/** A connection that was never made: the request did not reach the replica. */
function refused(e: unknown): boolean {
  const code = (e as { cause?: { code?: string } })?.cause?.code;
  return code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EHOSTUNREACH";
}
