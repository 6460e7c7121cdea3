"""verify_webhook against deliveries signed by the `standardwebhooks` library."""

from __future__ import annotations

import base64
import json
import time
from datetime import datetime, timezone
from typing import Dict

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from hitl import HitlError, verify_webhook

SECRET = "whsec_" + base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
OLD_SECRET = "whsec_" + base64.b64encode(b"the secret before the rotation!!").decode()
BODY = json.dumps({"type": "question.answered", "timestamp": "2026-11-26T18:00:00Z", "data": {"id": "q_1", "status": "answered"}})


def signed(body: str = BODY, secret: str = SECRET, at: float | None = None, msg_id: str = "msg_1") -> Dict[str, str]:
    ts = int(time.time() if at is None else at)
    sig = Webhook(secret).sign(msg_id, datetime.fromtimestamp(ts, tz=timezone.utc), body)
    return {"webhook-id": msg_id, "webhook-timestamp": str(ts), "webhook-signature": sig}


def test_a_delivery_the_library_signs_is_verified() -> None:
    h = signed()
    assert verify_webhook(SECRET, h, BODY) == BODY.encode()
    assert verify_webhook(SECRET, {k.title(): v for k, v in h.items()}, BODY.encode()) == BODY.encode()  # header case does not matter
    Webhook(SECRET).verify(BODY, h)  # and the library agrees


@pytest.mark.parametrize(
    "why, secret, headers, body",
    [
        ("tampered body", SECRET, signed(), BODY.replace("answered", "cancelled")),
        ("another secret", OLD_SECRET, signed(), BODY),
        ("timestamp 6 minutes old", SECRET, {"age": "360"}, BODY),
        ("timestamp 6 minutes ahead", SECRET, {"age": "-360"}, BODY),
        ("id changed", SECRET, {**signed(), "webhook-id": "msg_2"}, BODY),
        ("no signature header", SECRET, {k: v for k, v in signed().items() if k != "webhook-signature"}, BODY),
        ("a signature of another version", SECRET, {**signed(), "webhook-signature": "v1a," + signed()["webhook-signature"][3:]}, BODY),
        ("timestamp not a number", SECRET, {**signed(), "webhook-timestamp": "yesterday"}, BODY),
    ],
)
def test_refused(why: str, secret: str, headers: Dict[str, str], body: str) -> None:
    if "age" in headers:  # signed now, not when the module was collected
        headers = signed(at=time.time() - float(headers["age"]))
    with pytest.raises(HitlError) as e:
        verify_webhook(secret, headers, body)
    assert e.value.code == "invalid_signature", why
    if "signature" in headers and "webhook-id" in headers:  # the library refuses the same deliveries
        with pytest.raises(WebhookVerificationError):
            Webhook(secret).verify(body, headers)


def test_within_the_5_minute_tolerance() -> None:
    assert verify_webhook(SECRET, signed(at=time.time() - 240), BODY)
    now = 2_000_000_000.0
    assert verify_webhook(SECRET, signed(at=now - 299), BODY, now=now)
    with pytest.raises(HitlError):
        verify_webhook(SECRET, signed(at=now - 301), BODY, now=now)


def test_several_signatures_during_a_secret_rotation() -> None:
    h_old, h_new = signed(secret=OLD_SECRET), signed(secret=SECRET)
    both = {**h_new, "webhook-signature": h_old["webhook-signature"] + " " + h_new["webhook-signature"]}
    assert verify_webhook(SECRET, both, BODY)
    assert verify_webhook(OLD_SECRET, both, BODY)
    with pytest.raises(HitlError):
        verify_webhook("whsec_" + base64.b64encode(b"x" * 32).decode(), both, BODY)


def test_a_secret_that_is_not_base64_is_a_clear_error() -> None:
    with pytest.raises(HitlError) as e:
        verify_webhook("whsec_not base64!", signed(), BODY)
    assert e.value.code == "invalid_signature" and "base64" in e.value.message
