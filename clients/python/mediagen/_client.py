"""The synchronous client: ``MediaGen(api_key=..., base_url=...)`` with one object per resource."""

from __future__ import annotations

import time
from typing import Any, Iterator, List, Mapping, Optional, Sequence

import httpx

import json

from ._common import (
    STREAM_RECONNECTS,
    TERMINAL,
    ChangeReporter,
    EventParser,
    Kinds,
    ProgressCallback,
    events_path,
    is_event_stream,
    new_idempotency_key,
    poll_interval,
    task_path,
    with_ceiling,
)
from ._http import Settings, SyncHTTP
from .errors import NotFoundError
from .types import Balance, CancelResult, ImageGenerateParams, Quote, SubmitResponse, Task, TaskListItem, TaskPage, VideoGenerateParams
from .batch import BatchOutcome, ProgressFn, run_batch
from .webhooks import Webhooks


class _Generate:
    def __init__(self, http: SyncHTTP, kinds: Kinds, kind: str) -> None:
        self._http, self._kinds, self._kind = http, kinds, kind

    def generate(self, params: Mapping[str, Any], *, idempotency_key: Optional[str] = None, max_cost_cents: Optional[int] = None) -> SubmitResponse:
        """Submits a task. One idempotency key (yours, or a new UUID) is sent on every retry of this call."""
        res: SubmitResponse = self._http.request(
            "POST", f"/api/{self._kind}/generate", body=with_ceiling(params, max_cost_cents), idempotency_key=idempotency_key or new_idempotency_key()
        )
        self._kinds.remember(res["taskId"], self._kind)
        return res

    def quote(self, params: Mapping[str, Any], *, max_cost_cents: Optional[int] = None) -> Quote:
        """What generate would charge for these params; nothing is created or charged."""
        return self._http.request("POST", f"/api/{self._kind}/quote", body=with_ceiling(params, max_cost_cents))


class Videos(_Generate):
    def generate(self, params: VideoGenerateParams, **kw: Any) -> SubmitResponse:  # type: ignore[override]
        return super().generate(params, **kw)

    def quote(self, params: VideoGenerateParams, **kw: Any) -> Quote:  # type: ignore[override]
        return super().quote(params, **kw)


class Images(_Generate):
    def generate(self, params: ImageGenerateParams, **kw: Any) -> SubmitResponse:  # type: ignore[override]
        return super().generate(params, **kw)

    def quote(self, params: ImageGenerateParams, **kw: Any) -> Quote:  # type: ignore[override]
        return super().quote(params, **kw)


class Tasks:
    def __init__(self, http: SyncHTTP, kinds: Kinds) -> None:
        self._http, self._kinds = http, kinds

    def _with_kind(self, task_id: str, kind: Optional[str], call: Any) -> Any:
        known = kind or self._kinds.get(task_id)
        if known:
            return call(known)
        try:
            out = call("video")
            self._kinds.remember(task_id, "video")
            return out
        except NotFoundError:
            out = call("image")
            self._kinds.remember(task_id, "image")
            return out

    def get(self, task_id: str, *, type: Optional[str] = None) -> Task:
        """Polls a task once."""
        return self._with_kind(task_id, type, lambda k: self._http.request("GET", task_path(k, task_id)))

    def cancel(self, task_id: str, *, type: Optional[str] = None) -> CancelResult:
        """Cancels a task: failed with errorCode cancelled (refunded), or processing with cancelRequested."""
        return self._with_kind(task_id, type, lambda k: self._http.request("POST", task_path(k, task_id, "/cancel")))

    def list_pages(self, *, status: Optional[str] = None, type: Optional[str] = None, model: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None) -> Iterator[TaskPage]:
        """The account's tasks, newest first, one page per iteration."""
        while True:
            page: TaskPage = self._http.request("GET", "/api/tasks", query={"status": status, "type": type, "model": model, "limit": limit, "cursor": cursor})
            for t in page["data"]:
                self._kinds.remember(t["taskId"], t["type"])
            yield page
            if not page.get("nextCursor"):
                return
            cursor = page["nextCursor"]

    def list(self, **filters: Any) -> Iterator[TaskListItem]:
        """Every task of the account, newest first, fetching pages as the iteration goes."""
        for page in self.list_pages(**filters):
            yield from page["data"]

    def wait(
        self,
        task_id: str,
        *,
        type: Optional[str] = None,
        on_progress: Optional[ProgressCallback] = None,
        interval: Optional[float] = None,
        timeout: Optional[float] = None,
        stream: bool = True,
    ) -> Task:
        """Waits until the task is completed or failed and returns it (a failed task is returned, not raised).

        Follows the task's event stream (GET /api/tasks/{id}/events) when the service offers it,
        and polls every 5-10 s otherwise (429s are waited out by the request path). Raises
        TimeoutError after ``timeout`` seconds; the task goes on.
        """
        report = ChangeReporter(on_progress)
        deadline = None if timeout is None else time.monotonic() + timeout
        if stream:
            done = self._follow_stream(task_id, report, deadline, timeout)
            if done is not None:
                return done
        every = poll_interval(interval)
        while True:
            task = self.get(task_id, type=type)
            report(task)
            if task["status"] in TERMINAL:
                return task
            if deadline is not None and time.monotonic() + every > deadline:
                raise TimeoutError(f"task {task_id} did not finish within {timeout} s (it goes on)")
            time.sleep(every)

    def _follow_stream(self, task_id: str, report: ChangeReporter, deadline: Optional[float], timeout: Optional[float]) -> Optional[Task]:
        """The terminal task from the event stream, or None: the service offers no stream for this
        call (an older service, a 404, 429 too_many_streams) or it kept breaking; then the caller polls."""
        last_id: Optional[str] = None
        for _ in range(STREAM_RECONNECTS + 1):
            remaining = None if deadline is None else deadline - time.monotonic()
            try:
                with self._http.stream(events_path(task_id), last_id, remaining) as res:
                    if not is_event_stream(res):
                        return None
                    parser = EventParser()
                    for line in res.iter_lines():
                        ev = parser.feed(line)
                        if ev is None:
                            continue
                        ev_id, name, data = ev
                        last_id = ev_id or last_id
                        task: Task = json.loads(data)
                        if task.get("type"):
                            self._kinds.remember(task_id, task["type"])
                        report(task)
                        if name == "done" or task["status"] in TERMINAL:
                            return task
            except (httpx.TransportError, ValueError):
                pass  # dropped, timed out or garbled: resume (or poll)
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"task {task_id} did not finish within {timeout} s (it goes on)")
        return None


class MediaGen:
    """The synchronous client. ``api_key`` and ``base_url`` default to MEDIAGEN_API_KEY and MEDIAGEN_BASE_URL."""

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        max_retries: int = 3,
        timeout: float = 60.0,
        max_retry_after: float = 60.0,
        transport: Optional[httpx.BaseTransport] = None,
    ) -> None:
        self._settings = Settings.resolve(api_key, base_url, max_retries, timeout, max_retry_after)
        self._client = httpx.Client(transport=transport) if transport else httpx.Client()
        self._http = SyncHTTP(self._settings, self._client)
        kinds = Kinds()
        self.videos = Videos(self._http, kinds, "video")
        self.images = Images(self._http, kinds, "image")
        self.tasks = Tasks(self._http, kinds)
        self.webhooks = Webhooks()

    @property
    def base_url(self) -> str:
        return self._settings.base_url

    def balance(self) -> Balance:
        """The account's balance in cents and where to top it up."""
        return self._http.request("GET", "/api/balance")

    def batch(self, items: Sequence[Mapping[str, Any]], *, concurrency: Optional[int] = None, key_prefix: str = "", on_progress: Optional[ProgressFn] = None) -> List[BatchOutcome]:
        """Generates every item (a generate body; its model says video or image) and waits for each,
        at most ``concurrency`` in progress at once, waiting out 429s; one outcome per item, in order.
        Keys are derived from the items: running the same batch again charges nothing twice."""
        return run_batch(self, items, concurrency, key_prefix, on_progress)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> "MediaGen":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
