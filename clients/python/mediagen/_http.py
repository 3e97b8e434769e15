"""One request path for every call, sync and async: bearer auth, JSON, a per-attempt timeout, and
retries of the answers that are safe to retry: no answer at all, 409 idempotency_in_progress, 429
(after its Retry-After), 5xx. A generate call passes the same Idempotency-Key on every attempt, so
a retry after a lost answer replays the first task instead of charging a second one. The retry
policy lives in plain functions here, shared by the two clients, which differ only in how they
send and sleep.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import random
import time
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Union

import httpx

from ._version import __version__
from .errors import APIConnectionError, APIError, MediaGenError, error_from_response, parse_retry_after

DEFAULT_BASE_URL = "http://localhost:3000"
Query = Mapping[str, Union[str, int, None]]


@dataclass(frozen=True)
class Settings:
    api_key: str
    base_url: str
    max_retries: int = 3
    timeout: float = 60.0
    max_retry_after: float = 60.0

    @staticmethod
    def resolve(api_key: Optional[str], base_url: Optional[str], max_retries: int, timeout: float, max_retry_after: float) -> "Settings":
        key = api_key or os.environ.get("MEDIAGEN_API_KEY")
        if not key:
            raise MediaGenError("No API key: pass api_key= or set MEDIAGEN_API_KEY")
        url = (base_url or os.environ.get("MEDIAGEN_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        return Settings(key, url, max_retries, timeout, max_retry_after)


def headers_for(settings: Settings, idempotency_key: Optional[str], has_body: bool) -> Dict[str, str]:
    h = {
        "Authorization": f"Bearer {settings.api_key}",
        "Accept": "application/json",
        "User-Agent": f"mediagen-python/{__version__} python/{platform.python_version()}",
    }
    if has_body:
        h["Content-Type"] = "application/json"
    if idempotency_key:
        h["Idempotency-Key"] = idempotency_key
    return h


def encode(body: Any) -> Optional[bytes]:
    return None if body is None else json.dumps(body, separators=(",", ":")).encode("utf-8")


def clean_query(query: Optional[Query]) -> Dict[str, str]:
    return {k: str(v) for k, v in (query or {}).items() if v is not None}


def backoff(attempt: int) -> float:
    """Exponential backoff with jitter: about 0.5 s, 1 s, 2 s ... at most 8 s."""
    return min(8.0, 0.5 * 2**attempt) * (0.75 + random.random() / 2)


def _retryable(e: APIError) -> bool:
    return (e.status == 409 and e.code == "idempotency_in_progress") or e.status == 429 or e.status >= 500


def outcome(response: httpx.Response) -> Any:
    """The parsed body of a 2xx answer, or raises the typed error of any other."""
    try:
        body = response.json() if response.content else None
    except ValueError:
        body = None
    if 200 <= response.status_code < 300:
        return body
    raise error_from_response(response.status_code, body, response.headers)


def delay_before_retry(err: MediaGenError, attempt: int, settings: Settings) -> Optional[float]:
    """Seconds to wait before the next attempt, or None when `err` is to be raised."""
    if attempt >= settings.max_retries:
        return None
    if isinstance(err, APIConnectionError):
        return backoff(attempt)
    if not isinstance(err, APIError) or not _retryable(err):
        return None
    after = parse_retry_after(err.headers.get("retry-after"))
    if after is None:
        return backoff(attempt)
    return after if after <= settings.max_retry_after else None


def stream_timeout(remaining: Optional[float]) -> httpx.Timeout:
    # Heartbeats come every 15 s: a read that waits 60 s means the stream is dead. Within a wait's
    # own deadline, no longer than what is left of it.
    read = 60.0 if remaining is None else max(0.1, min(60.0, remaining))
    return httpx.Timeout(10.0, read=read)


def stream_headers(settings: Settings, last_event_id: Optional[str]) -> Dict[str, str]:
    h = headers_for(settings, None, False)
    h["Accept"] = "text/event-stream"
    if last_event_id:
        h["Last-Event-ID"] = last_event_id
    return h


class SyncHTTP:
    def __init__(self, settings: Settings, client: httpx.Client) -> None:
        self.settings = settings
        self.client = client

    def stream(self, path: str, last_event_id: Optional[str], remaining: Optional[float]):
        """A long-lived GET (an event stream), one attempt: a context manager giving the response."""
        return self.client.stream("GET", self.settings.base_url + path, headers=stream_headers(self.settings, last_event_id), timeout=stream_timeout(remaining))

    def request(self, method: str, path: str, *, query: Optional[Query] = None, body: Any = None, idempotency_key: Optional[str] = None) -> Any:
        headers = headers_for(self.settings, idempotency_key, body is not None)
        content = encode(body)
        url = self.settings.base_url + path
        attempt = 0
        while True:
            try:
                try:
                    res = self.client.request(method, url, params=clean_query(query), content=content, headers=headers, timeout=self.settings.timeout)
                except httpx.TransportError as e:
                    raise APIConnectionError(f"{method} {path}: no answer ({e!r})") from e
                return outcome(res)
            except MediaGenError as err:
                wait = delay_before_retry(err, attempt, self.settings)
                if wait is None:
                    raise
                time.sleep(wait)
                attempt += 1


class AsyncHTTP:
    def __init__(self, settings: Settings, client: httpx.AsyncClient) -> None:
        self.settings = settings
        self.client = client

    def stream(self, path: str, last_event_id: Optional[str], remaining: Optional[float]):
        return self.client.stream("GET", self.settings.base_url + path, headers=stream_headers(self.settings, last_event_id), timeout=stream_timeout(remaining))

    async def request(self, method: str, path: str, *, query: Optional[Query] = None, body: Any = None, idempotency_key: Optional[str] = None) -> Any:
        headers = headers_for(self.settings, idempotency_key, body is not None)
        content = encode(body)
        url = self.settings.base_url + path
        attempt = 0
        while True:
            try:
                try:
                    res = await self.client.request(method, url, params=clean_query(query), content=content, headers=headers, timeout=self.settings.timeout)
                except httpx.TransportError as e:
                    raise APIConnectionError(f"{method} {path}: no answer ({e!r})") from e
                return outcome(res)
            except MediaGenError as err:
                wait = delay_before_retry(err, attempt, self.settings)
                if wait is None:
                    raise
                await asyncio.sleep(wait)
                attempt += 1
