"""What the sync and async clients share: building bodies, remembering each task's kind (the poll
paths differ for video and image tasks and a task id alone does not say which), and the rules of
waiting (the service asks for polls 5-10 s apart)."""

from __future__ import annotations

import uuid
from typing import Any, Callable, Dict, Mapping, Optional
from urllib.parse import quote as _urlquote

from .types import Task

MIN_POLL_SECONDS = 5.0
MAX_POLL_SECONDS = 10.0
TERMINAL = ("completed", "failed")

ProgressCallback = Callable[[Task], None]


def with_ceiling(params: Mapping[str, Any], max_cost_cents: Optional[int]) -> Dict[str, Any]:
    body = dict(params)
    if max_cost_cents is not None:
        body["max_cost_cents"] = max_cost_cents
    return body


def new_idempotency_key() -> str:
    return str(uuid.uuid4())


def task_path(kind: str, task_id: str, suffix: str = "") -> str:
    return f"/api/{kind}/tasks/{_urlquote(task_id, safe='')}{suffix}"


def poll_interval(interval: Optional[float]) -> float:
    return min(MAX_POLL_SECONDS, max(MIN_POLL_SECONDS, interval if interval is not None else MIN_POLL_SECONDS))


class Kinds:
    """task id -> video|image, learnt from generate and list calls (bounded)."""

    def __init__(self) -> None:
        self._kinds: Dict[str, str] = {}

    def remember(self, task_id: str, kind: str) -> None:
        if len(self._kinds) >= 10_000:
            self._kinds.clear()
        self._kinds[task_id] = kind

    def get(self, task_id: str) -> Optional[str]:
        return self._kinds.get(task_id)


class ChangeReporter:
    """Calls on_progress once per change of status or progress."""

    def __init__(self, on_progress: Optional[ProgressCallback]) -> None:
        self._on = on_progress
        self._seen = ""

    def __call__(self, task: Task) -> None:
        key = f"{task.get('status')}:{task.get('progress', '')}"
        if key != self._seen:
            self._seen = key
            if self._on:
                self._on(task)


# Reconnections of a broken event stream (resumed with Last-Event-ID) before falling back to polling.
STREAM_RECONNECTS = 3


class EventParser:
    """The part of the Server-Sent Events format the service sends, one line at a time:
    ``feed`` returns an event ``(id, event, data)`` at each blank line that ends one."""

    def __init__(self) -> None:
        self._id: Optional[str] = None
        self._event: Optional[str] = None
        self._data: Optional[str] = None

    def feed(self, line: str):
        line = line.rstrip("\r\n")  # httpx 0.23 keeps line endings; later versions strip them
        if line == "":
            out = None if self._data is None else (self._id, self._event or "message", self._data)
            self._id = self._event = self._data = None
            return out
        if line.startswith(":"):
            return None  # a comment (heartbeat)
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            self._data = value if self._data is None else f"{self._data}\n{value}"
        elif field == "event":
            self._event = value
        elif field == "id":
            self._id = value
        return None


def events_path(task_id: str) -> str:
    return f"/api/tasks/{_urlquote(task_id, safe='')}/events"


def is_event_stream(response) -> bool:
    return response.status_code == 200 and response.headers.get("content-type", "").startswith("text/event-stream")
