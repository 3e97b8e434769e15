"""Standard Webhooks verification (https://www.standardwebhooks.com/) in a few lines of hmac:
``webhook-signature: v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{raw body}">``
keyed with the base64 part of a ``whsec_...`` secret, and a timestamp within the tolerance so a
captured request cannot be replayed later."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Mapping, Optional, Sequence, Union

from .errors import MediaGenError
from .types import WebhookEvent


class WebhookVerificationError(MediaGenError):
    """The request is not an authentic, fresh webhook of the service."""


def _header(headers: Mapping[str, str], name: str) -> Optional[str]:
    for k, v in headers.items():
        if k.lower() == name:
            return v
    return None


def _key(secret: str) -> bytes:
    return base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)


def verify(raw_body: Union[bytes, str], headers: Mapping[str, str], secret: Union[str, Sequence[str]], *, tolerance: int = 300, now: Optional[float] = None) -> WebhookEvent:
    """Verifies and parses a webhook request; ``raw_body`` must be the bytes as received.

    ``secret`` may be a list: during a rotation both the old and the new secret verify.
    """
    msg_id, ts, signatures = _header(headers, "webhook-id"), _header(headers, "webhook-timestamp"), _header(headers, "webhook-signature")
    if not msg_id or not ts or not signatures:
        raise WebhookVerificationError("Missing webhook-id, webhook-timestamp or webhook-signature header")
    if not ts.isdigit():
        raise WebhookVerificationError("Invalid webhook-timestamp")
    if abs((time.time() if now is None else now) - int(ts)) > tolerance:
        raise WebhookVerificationError("webhook-timestamp outside the tolerance")
    body = raw_body if isinstance(raw_body, bytes) else raw_body.encode("utf-8")
    signed = f"{msg_id}.{ts}.".encode("utf-8") + body
    given = []
    for part in signatures.split(" "):
        version, _, sig = part.partition(",")
        if version == "v1" and sig:
            try:
                given.append(base64.b64decode(sig))
            except ValueError:
                continue
    for s in [secret] if isinstance(secret, str) else list(secret):
        expected = hmac.new(_key(s), signed, hashlib.sha256).digest()
        if any(hmac.compare_digest(g, expected) for g in given):
            try:
                return json.loads(body)
            except ValueError as e:
                raise WebhookVerificationError("Webhook body is not JSON") from e
    raise WebhookVerificationError("No matching signature")


class Webhooks:
    """``client.webhooks.verify(raw_body, headers, secret)``: the same check as :func:`verify`."""

    def verify(self, raw_body: Union[bytes, str], headers: Mapping[str, str], secret: Union[str, Sequence[str]], *, tolerance: int = 300, now: Optional[float] = None) -> WebhookEvent:
        return verify(raw_body, headers, secret, tolerance=tolerance, now=now)
