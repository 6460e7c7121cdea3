/**
 * The one error type of the client and the translation of the service's
 * error answers into it (the only place a status or an error body becomes
 * a code).
 */

/**
 * The one error type of the client. `code` is the API's error code
 * (`invalid`, `not_found`, `conflict`, `unauthorized`, `forbidden`, `refused`,
 * `rate_limited`, `too_many_streams`, `too_large`, `unavailable`, `internal`,
 * `timed_out`, `cancelled`) or one of the client's own: `deadline_exceeded`
 * (a wait's own `timeout` ran out, the question still pending),
 * `invalid_signature` (verifyWebhook), `invalid_edit` (an adapter refused a
 * person's edit). The codes are the same in every client:
 * docs/api.md#client-error-codes.
 */
export class HitlError extends Error {
  readonly code: string;
  /** The HTTP status the service answered with, when it answered. */
  readonly status?: number;
  /** Seconds the service asked to wait before trying again (429). */
  readonly retryAfter?: number;
  /** For a conflict or a cancellation: who settled the question, and when. */
  readonly by?: string;
  readonly at?: string;

  constructor(code: string, message: string, extra: { status?: number; retryAfter?: number; by?: string; at?: string; cause?: unknown } = {}) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = "HitlError";
    this.code = code;
    this.status = extra.status;
    this.retryAfter = extra.retryAfter;
    this.by = extra.by;
    this.at = extra.at;
  }
}

/** The code of err when it is a HitlError, else "". */
export function errorCode(err: unknown): string {
  return err instanceof HitlError ? err.code : "";
}

/** The code a status gets when the body is not hitl's JSON (a proxy's page). */
export function codeOfStatus(status: number): string {
  switch (status) {
    case 400: return "invalid";
    case 401: return "unauthorized";
    case 403: return "forbidden";
    case 404: return "not_found";
    case 409: return "conflict";
    case 413: return "too_large";
    case 415: return "unsupported_media_type";
    case 422: return "refused";
    case 429: return "rate_limited";
    case 502: case 503: case 504: return "unavailable";
  }
  return status >= 500 ? "internal" : "invalid";
}

/** The HitlError an answer of 300 or more is: hitl's `{code, message}`, else its status's code. */
export async function errorOf(res: globalThis.Response): Promise<HitlError> {
  let body: { code?: string; message?: string; answeredBy?: string; answeredAt?: string } = {};
  const text = await res.text().catch(() => "");
  try { body = JSON.parse(text); } catch { /* not hitl's JSON: a proxy's page */ }
  const ra = Number(res.headers.get("Retry-After"));
  return new HitlError(body.code || codeOfStatus(res.status), body.message || `hitl answered ${res.status} ${res.statusText}`.trim(), {
    status: res.status,
    retryAfter: Number.isFinite(ra) && ra > 0 ? ra : undefined,
    by: body.answeredBy,
    at: body.answeredAt,
  });
}
