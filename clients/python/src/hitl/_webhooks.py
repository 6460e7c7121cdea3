"""Verifying hitl's webhook deliveries (Standard Webhooks)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
from typing import Mapping, Optional, Union

from ._errors import INVALID_SIGNATURE, HitlError

TOLERANCE = 5 * 60  # seconds a delivery's timestamp may be off


def _secret_key(secret: Union[str, bytes]) -> bytes:
    if isinstance(secret, bytes):
        return secret
    s = secret[len("whsec_"):] if secret.startswith("whsec_") else secret
    try:
        return base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        raise HitlError(INVALID_SIGNATURE, "the webhook secret is not base64 after 'whsec_'") from None


def _header(headers: Mapping[str, str], name: str) -> str:
    for k, v in headers.items():
        if k.lower() == name:
            return v
    raise HitlError(INVALID_SIGNATURE, f"the delivery has no {name} header")


def verify_webhook(
    secret: Union[str, bytes],
    headers: Mapping[str, str],
    body: Union[str, bytes],
    *,
    now: Optional[float] = None,
    tolerance: float = TOLERANCE,
) -> bytes:
    """Check a webhook delivery's Standard Webhooks signature and return its body.

    ``secret`` is the endpoint's ``whsec_…`` secret; ``headers`` the request's
    headers (any case); ``body`` the raw body, exactly as received. The
    signature is ``v1,`` + base64 HMAC-SHA256 of ``id.timestamp.body``; during
    a secret rotation ``webhook-signature`` carries several, space-separated,
    and one match is enough. A timestamp more than ``tolerance`` seconds
    (5 minutes) from ``now`` is refused, so an old delivery cannot be replayed.
    Every refusal is HitlError ``invalid_signature``.
    """
    raw = body.encode() if isinstance(body, str) else bytes(body)
    msg_id = _header(headers, "webhook-id")
    ts = _header(headers, "webhook-timestamp")
    sigs = _header(headers, "webhook-signature")
    try:
        stamp = int(ts)
    except ValueError:
        raise HitlError(INVALID_SIGNATURE, f"webhook-timestamp {ts!r} is not a Unix time") from None
    at = time.time() if now is None else now
    if stamp < at - tolerance:
        raise HitlError(INVALID_SIGNATURE, f"the delivery's timestamp is {int(at - stamp)}s old (more than {int(tolerance)}s): refused as a possible replay")
    if stamp > at + tolerance:
        raise HitlError(INVALID_SIGNATURE, f"the delivery's timestamp is {int(stamp - at)}s in the future (more than {int(tolerance)}s)")
    mac = hmac.new(_secret_key(secret), f"{msg_id}.{stamp}.".encode() + raw, hashlib.sha256).digest()
    want = base64.b64encode(mac)
    ok = False
    for sig in sigs.split():
        version, _, value = sig.partition(",")
        if version == "v1" and hmac.compare_digest(value.encode(), want):
            ok = True  # keep comparing: the time taken does not say which one matched
    if not ok:
        raise HitlError(INVALID_SIGNATURE, "no webhook-signature matches the body under this secret")
    return raw
