"""The asyncio client: ``AsyncMediaGen``, the same resources as ``MediaGen`` with awaitable calls."""

from __future__ import annotations

import asyncio
import time
from typing import Any, AsyncIterator, Awaitable, Callable, List, Mapping, Optional, Sequence

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
from ._http import AsyncHTTP, Settings
from .errors import NotFoundError
from .types import Balance, CancelResult, ImageGenerateParams, Quote, SubmitResponse, Task, TaskListItem, TaskPage, VideoGenerateParams
from .batch import BatchOutcome, ProgressFn, run_batch_async
from .webhooks import Webhooks


class _AsyncGenerate:
    def __init__(self, http: AsyncHTTP, kinds: Kinds, kind: str) -> None:
        self._http, self._kinds, self._kind = http, kinds, kind

    async def generate(self, params: Mapping[str, Any], *, idempotency_key: Optional[str] = None, max_cost_cents: Optional[int] = None) -> SubmitResponse:
        res: SubmitResponse = await self._http.request(
            "POST", f"/api/{self._kind}/generate", body=with_ceiling(params, max_cost_cents), idempotency_key=idempotency_key or new_idempotency_key()
        )
        self._kinds.remember(res["taskId"], self._kind)
        return res

    async def quote(self, params: Mapping[str, Any], *, max_cost_cents: Optional[int] = None) -> Quote:
        return await self._http.request("POST", f"/api/{self._kind}/quote", body=with_ceiling(params, max_cost_cents))


class AsyncVideos(_AsyncGenerate):
    async def generate(self, params: VideoGenerateParams, **kw: Any) -> SubmitResponse:  # type: ignore[override]
        return await super().generate(params, **kw)

    async def quote(self, params: VideoGenerateParams, **kw: Any) -> Quote:  # type: ignore[override]
        return await super().quote(params, **kw)


class AsyncImages(_AsyncGenerate):
    async def generate(self, params: ImageGenerateParams, **kw: Any) -> SubmitResponse:  # type: ignore[override]
        return await super().generate(params, **kw)

    async def quote(self, params: ImageGenerateParams, **kw: Any) -> Quote:  # type: ignore[override]
        return await super().quote(params, **kw)


class AsyncTasks:
    def __init__(self, http: AsyncHTTP, kinds: Kinds) -> None:
        self._http, self._kinds = http, kinds

    async def _with_kind(self, task_id: str, kind: Optional[str], call: Callable[[str], Awaitable[Any]]) -> Any:
        known = kind or self._kinds.get(task_id)
        if known:
            return await call(known)
        try:
            out = await call("video")
            self._kinds.remember(task_id, "video")
            return out
        except NotFoundError:
            out = await call("image")
            self._kinds.remember(task_id, "image")
            return out

    async def get(self, task_id: str, *, type: Optional[str] = None) -> Task:
        return await self._with_kind(task_id, type, lambda k: self._http.request("GET", task_path(k, task_id)))

    async def cancel(self, task_id: str, *, type: Optional[str] = None) -> CancelResult:
        return await self._with_kind(task_id, type, lambda k: self._http.request("POST", task_path(k, task_id, "/cancel")))

    async def list_pages(self, *, status: Optional[str] = None, type: Optional[str] = None, model: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None) -> AsyncIterator[TaskPage]:
        while True:
            page: TaskPage = await self._http.request("GET", "/api/tasks", query={"status": status, "type": type, "model": model, "limit": limit, "cursor": cursor})
            for t in page["data"]:
                self._kinds.remember(t["taskId"], t["type"])
            yield page
            if not page.get("nextCursor"):
                return
            cursor = page["nextCursor"]

    async def list(self, **filters: Any) -> AsyncIterator[TaskListItem]:
        async for page in self.list_pages(**filters):
            for item in page["data"]:
                yield item

    async def wait(
        self,
        task_id: str,
        *,
        type: Optional[str] = None,
        on_progress: Optional[ProgressCallback] = None,
        interval: Optional[float] = None,
        timeout: Optional[float] = None,
        stream: bool = True,
    ) -> Task:
        """As MediaGen.tasks.wait: the event stream when offered, else polls every 5-10 s."""
        report = ChangeReporter(on_progress)
        deadline = None if timeout is None else time.monotonic() + timeout
        if stream:
            done = await self._follow_stream(task_id, report, deadline, timeout)
            if done is not None:
                return done
        every = poll_interval(interval)
        while True:
            task = await self.get(task_id, type=type)
            report(task)
            if task["status"] in TERMINAL:
                return task
            if deadline is not None and time.monotonic() + every > deadline:
                raise TimeoutError(f"task {task_id} did not finish within {timeout} s (it goes on)")
            await asyncio.sleep(every)

    async def _follow_stream(self, task_id: str, report: ChangeReporter, deadline: Optional[float], timeout: Optional[float]) -> Optional[Task]:
        last_id: Optional[str] = None
        for _ in range(STREAM_RECONNECTS + 1):
            remaining = None if deadline is None else deadline - time.monotonic()
            try:
                async with self._http.stream(events_path(task_id), last_id, remaining) as res:
                    if not is_event_stream(res):
                        return None
                    parser = EventParser()
                    async for line in res.aiter_lines():
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
                pass
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"task {task_id} did not finish within {timeout} s (it goes on)")
        return None


class AsyncMediaGen:
    """The asyncio client; use ``async with AsyncMediaGen() as mg:`` or call ``aclose()``."""

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        max_retries: int = 3,
        timeout: float = 60.0,
        max_retry_after: float = 60.0,
        transport: Optional[httpx.AsyncBaseTransport] = None,
    ) -> None:
        self._settings = Settings.resolve(api_key, base_url, max_retries, timeout, max_retry_after)
        self._client = httpx.AsyncClient(transport=transport) if transport else httpx.AsyncClient()
        self._http = AsyncHTTP(self._settings, self._client)
        kinds = Kinds()
        self.videos = AsyncVideos(self._http, kinds, "video")
        self.images = AsyncImages(self._http, kinds, "image")
        self.tasks = AsyncTasks(self._http, kinds)
        self.webhooks = Webhooks()

    @property
    def base_url(self) -> str:
        return self._settings.base_url

    async def balance(self) -> Balance:
        return await self._http.request("GET", "/api/balance")

    async def batch(self, items: Sequence[Mapping[str, Any]], *, concurrency: Optional[int] = None, key_prefix: str = "", on_progress: Optional[ProgressFn] = None) -> List[BatchOutcome]:
        """As MediaGen.batch, on asyncio."""
        return await run_batch_async(self, items, concurrency, key_prefix, on_progress)

    async def aclose(self) -> None:
        await self._client.aclose()

    async def __aenter__(self) -> "AsyncMediaGen":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()
