"""Typed errors, one class per kind of answer (the TypeScript SDK's classes, same names in Python style).

Branch on the class or on ``code`` (the service's stable code), never on the text. Every
:class:`APIError` carries ``status``, ``code``, ``body``, ``details`` and ``request_id``
(the gateway's X-Request-Id, to quote when reporting a problem).
"""

from __future__ import annotations

import email.utils
import time
from typing import Any, Dict, List, Mapping, Optional


class MediaGenError(Exception):
    """Base of every error the SDK raises."""


class APIConnectionError(MediaGenError):
    """The request never got an answer (DNS, refused connection, reset, timeout)."""


class APIError(MediaGenError):
    def __init__(self, status: int, body: Optional[Dict[str, Any]], headers: Optional[Mapping[str, str]] = None) -> None:
        self.status = status
        self.body: Dict[str, Any] = body or {}
        self.headers: Dict[str, str] = {k.lower(): v for k, v in (headers or {}).items()}
        code = self.body.get("code")
        self.code: Optional[str] = code if isinstance(code, str) else None
        text = self.body.get("error")
        super().__init__(f"{status} {text}" if isinstance(text, str) else f"{status} status code (no error body)")

    @property
    def details(self) -> List[Dict[str, str]]:
        """The fields the service named as the problem (validation errors)."""
        d = self.body.get("details")
        return d if isinstance(d, list) else []

    @property
    def request_id(self) -> Optional[str]:
        return self.headers.get("x-request-id")


class BadRequestError(APIError):
    """400, 413, 422: the request is wrong; fix it rather than retry."""


class CostAboveLimitError(BadRequestError):
    """422 ``cost_above_limit``: the task costs more than max_cost_cents; nothing was created or charged."""

    @property
    def cost_cents(self) -> int:
        return int(self.body.get("costCents", 0))

    @property
    def max_cost_cents(self) -> int:
        return int(self.body.get("maxCostCents", 0))


class AuthenticationError(APIError):
    """401: the API key is missing, wrong or revoked."""


class InsufficientBalanceError(APIError):
    """402: nothing was charged; the body says what the task costs and what the balance is."""

    @property
    def cost_cents(self) -> int:
        return int(self.body.get("costCents", 0))

    @property
    def balance_cents(self) -> int:
        return int(self.body.get("balanceCents", 0))

    @property
    def top_up_url(self) -> str:
        return str(self.body.get("topUpUrl", ""))


class NotFoundError(APIError):
    """404."""


class ConflictError(APIError):
    """409: the same idempotency key still in flight (retried by the SDK), or ``not_cancellable``."""


class RateLimitError(APIError):
    """429: ``too_many_tasks`` (tasks in progress) or ``rate_limited`` (request rate)."""

    @property
    def retry_after(self) -> Optional[float]:
        return parse_retry_after(self.headers.get("retry-after"))


class InternalServerError(APIError):
    """5xx."""


def error_from_response(status: int, body: Any, headers: Optional[Mapping[str, str]] = None) -> APIError:
    """The error class for a status and body (ApiError.generate in the TypeScript SDK)."""
    b = body if isinstance(body, dict) else None
    code = b.get("code") if b else None
    if status == 422 and code == "cost_above_limit":
        return CostAboveLimitError(status, b, headers)
    cls = {
        400: BadRequestError,
        413: BadRequestError,
        422: BadRequestError,
        401: AuthenticationError,
        402: InsufficientBalanceError,
        404: NotFoundError,
        409: ConflictError,
        429: RateLimitError,
    }.get(status, InternalServerError if status >= 500 else APIError)
    return cls(status, b, headers)


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Retry-After as delay-seconds or an HTTP date (RFC 9110 10.2.3), in seconds."""
    if value is None or not value.strip():
        return None
    v = value.strip()
    if v.isdigit():
        return float(v)
    try:
        at = email.utils.parsedate_to_datetime(v)
    except (TypeError, ValueError):
        return None
    return max(0.0, at.timestamp() - time.time())
