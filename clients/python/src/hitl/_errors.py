"""The one error type of the client: every failure carries the API's code."""

from __future__ import annotations

from typing import Any, Mapping, Optional

# Codes the service sends (docs: README "HTTP API"), plus the client's own.
INVALID = "invalid"
UNAUTHORIZED = "unauthorized"
FORBIDDEN = "forbidden"
NOT_FOUND = "not_found"
CONFLICT = "conflict"
TOO_LARGE = "too_large"
RATE_LIMITED = "rate_limited"
TOO_MANY_STREAMS = "too_many_streams"
REFUSED = "refused"
UNAVAILABLE = "unavailable"
INTERNAL = "internal"
# The codes of a wait's ends, the same in every client (docs/api.md#client-error-codes):
TIMED_OUT = "timed_out"  # the question timed out on the service without an answer or default
TIMEOUT = TIMED_OUT  # the name this constant had first
CANCELLED = "cancelled"  # the question (or the run) was cancelled
DEADLINE_EXCEEDED = "deadline_exceeded"  # wait(timeout=…) ran out; the question is still pending
INVALID_SIGNATURE = "invalid_signature"  # verify_webhook refused a delivery

_STATUS_CODES = {
    400: INVALID,
    401: UNAUTHORIZED,
    403: FORBIDDEN,
    404: NOT_FOUND,
    409: CONFLICT,
    413: TOO_LARGE,
    415: "unsupported_media_type",
    422: REFUSED,
    429: RATE_LIMITED,
    502: UNAVAILABLE,
    503: UNAVAILABLE,
    504: UNAVAILABLE,
}


class HitlError(Exception):
    """An error from hitl or on the way to it.

    ``code`` is the API's error code (``timed_out``, ``deadline_exceeded``,
    ``cancelled``, ``forbidden``, ``rate_limited`` …, the same in every
    client: docs/api.md#client-error-codes); ``status`` the HTTP status when one
    was received; ``retry_after`` the seconds the service asked to wait;
    ``question`` the question concerned, when there is one.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status: Optional[int] = None,
        retry_after: Optional[float] = None,
        question: Optional[Mapping[str, Any]] = None,
        by: Optional[str] = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.question = question
        self.by = by

    def __repr__(self) -> str:
        return f"HitlError(code={self.code!r}, message={self.message!r})"


def code_of_status(status: int) -> str:
    """The code of an error response that is not hitl's JSON (a proxy's page)."""
    return _STATUS_CODES.get(status, INTERNAL)
