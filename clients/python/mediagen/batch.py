"""client.batch(items, concurrency=...): many generate calls, each submitted and waited for, with at
most ``concurrency`` tasks in progress at once (default 20, the service's default in-progress
limit; lowered to the account's own limit when a 429 too_many_tasks names it). 429s are waited out
and the same item retried, never dropped. Each item's Idempotency-Key is derived from the item (its
kind, its body, and which repeat of an identical item it is), exactly as the TypeScript SDK derives
it, so running the same batch again after a crash replays the tasks already created instead of
creating and charging them twice."""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from .errors import APIError, RateLimitError
from .types import Task

DEFAULT_BATCH_CONCURRENCY = 20


@dataclass
class BatchOutcome:
    index: int
    item: Mapping[str, Any]
    #: completed / failed: the task ended so (failed tasks are refunded); refused: the submit was refused.
    status: str
    idempotency_key: str
    task_id: Optional[str] = None
    task: Optional[Task] = None
    error: Optional[APIError] = None


@dataclass
class BatchProgress:
    total: int
    done: int = 0
    completed: int = 0
    failed: int = 0
    refused: int = 0
    in_flight: int = 0


ProgressFn = Callable[[BatchProgress, Optional[BatchOutcome]], None]


def canonical_json(value: Any) -> str:
    """JSON with object keys sorted at every level (the TypeScript SDK's canonicalJson)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def kind_of(item: Mapping[str, Any]) -> str:
    return "image" if str(item.get("model", "")).startswith("image-") else "video"


def batch_keys(items: Sequence[Mapping[str, Any]], key_prefix: str = "") -> List[str]:
    seen: Dict[str, int] = {}
    keys = []
    for item in items:
        text = f"{kind_of(item)}\n{canonical_json(item)}"
        n = seen.get(text, 0)
        seen[text] = n + 1
        keys.append("batch-" + hashlib.sha256(f"{key_prefix}\n{text}\n{n}".encode("utf-8")).hexdigest()[:48])
    return keys


class _State:
    def __init__(self, items: Sequence[Mapping[str, Any]], concurrency: Optional[int], key_prefix: str, on_progress: Optional[ProgressFn]) -> None:
        self.items = items
        self.keys = batch_keys(items, key_prefix)
        self.outcomes: List[Optional[BatchOutcome]] = [None] * len(items)
        self.progress = BatchProgress(total=len(items))
        self.limit = max(1, int(concurrency or DEFAULT_BATCH_CONCURRENCY))
        self.on_progress = on_progress
        self.next = 0

    def finish(self, o: BatchOutcome) -> None:
        self.outcomes[o.index] = o
        p = self.progress
        p.done += 1
        setattr(p, o.status, getattr(p, o.status) + 1)
        if self.on_progress:
            self.on_progress(BatchProgress(**vars(p)), o)

    def on_rate_limited(self, e: RateLimitError) -> float:
        """Lowers the limit to the one a too_many_tasks names; the seconds to wait before retrying."""
        limit = e.body.get("maxConcurrentTasks")
        if e.code == "too_many_tasks" and isinstance(limit, int) and limit > 0:
            self.limit = min(self.limit, limit)
        return e.retry_after if e.retry_after is not None else 5.0


def run_batch(client: Any, items: Sequence[Mapping[str, Any]], concurrency: Optional[int], key_prefix: str, on_progress: Optional[ProgressFn]) -> List[BatchOutcome]:
    st = _State(items, concurrency, key_prefix, on_progress)
    lock = threading.Lock()
    errors: List[BaseException] = []
    active = [0]

    def run_one(i: int) -> None:
        item, key, kind = items[i], st.keys[i], kind_of(items[i])
        resource = client.images if kind == "image" else client.videos
        while True:
            try:
                sub = resource.generate(item, idempotency_key=key)
            except RateLimitError as e:
                with lock:
                    wait = st.on_rate_limited(e)
                time.sleep(wait)
                continue
            except APIError as e:
                if e.status >= 500:
                    raise
                with lock:
                    st.finish(BatchOutcome(i, item, "refused", key, error=e))
                return
            with lock:
                st.progress.in_flight += 1
            try:
                task = client.tasks.wait(sub["taskId"], type=kind)
            finally:
                with lock:
                    st.progress.in_flight -= 1
            with lock:
                st.finish(BatchOutcome(i, item, "completed" if task["status"] == "completed" else "failed", key, sub["taskId"], task))
            return

    def worker() -> None:
        while True:
            with lock:
                if errors or st.next >= len(items) or active[0] > st.limit:
                    active[0] -= 1
                    return
                i = st.next
                st.next += 1
            try:
                run_one(i)
            except BaseException as e:  # no answer or 5xx after the retries: stop; a re-run resumes
                with lock:
                    errors.append(e)

    if on_progress:
        on_progress(BatchProgress(**vars(st.progress)), None)
    threads = []
    for _ in range(min(st.limit, len(items))):
        active[0] += 1
        t = threading.Thread(target=worker, daemon=True)
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return [o for o in st.outcomes if o is not None]


async def run_batch_async(client: Any, items: Sequence[Mapping[str, Any]], concurrency: Optional[int], key_prefix: str, on_progress: Optional[ProgressFn]) -> List[BatchOutcome]:
    st = _State(items, concurrency, key_prefix, on_progress)
    active = [0]

    async def run_one(i: int) -> None:
        item, key, kind = items[i], st.keys[i], kind_of(items[i])
        resource = client.images if kind == "image" else client.videos
        while True:
            try:
                sub = await resource.generate(item, idempotency_key=key)
            except RateLimitError as e:
                await asyncio.sleep(st.on_rate_limited(e))
                continue
            except APIError as e:
                if e.status >= 500:
                    raise
                st.finish(BatchOutcome(i, item, "refused", key, error=e))
                return
            st.progress.in_flight += 1
            try:
                task = await client.tasks.wait(sub["taskId"], type=kind)
            finally:
                st.progress.in_flight -= 1
            st.finish(BatchOutcome(i, item, "completed" if task["status"] == "completed" else "failed", key, sub["taskId"], task))
            return

    async def worker() -> None:
        while st.next < len(items) and active[0] <= st.limit:
            i = st.next
            st.next += 1
            await run_one(i)
        active[0] -= 1

    if on_progress:
        on_progress(BatchProgress(**vars(st.progress)), None)
    n = min(st.limit, len(items))
    active[0] = n
    await asyncio.gather(*(worker() for _ in range(n)))
    return [o for o in st.outcomes if o is not None]
