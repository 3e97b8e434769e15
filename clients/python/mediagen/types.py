"""Typed request and response bodies of the service, as TypedDicts.

Written by hand from the service's OpenAPI document (/openapi.json); tests/test_models.py checks
every class here against the document of the running service (field names, which are required,
and the values of enums), so a change to the API that is not made here fails the tests.
"""

from __future__ import annotations

from typing import List, Literal, Optional, TypedDict, Union

TaskStatus = Literal["pending", "processing", "completed", "failed"]
TaskType = Literal["video", "image"]
TaskErrorCode = Literal["content_violation", "generation_failed", "no_result", "timeout", "cancelled"]
VideoModel = Literal["video-a-h3", "video-b-2.5", "video-b-2.0", "video-b-2.0-mini", "video-c-3.1", "video-b-2"]
ImageModel = Literal[
    "image-a-5.0",
    "image-b-2",
    "image-b-2.5",
    "image-c-2.1",
    "image-d-2.5-flash-image",
    "image-d-3-pro-image-preview",
    "image-d-3.1-flash-image-preview",
]


class MediaItem(TypedDict):
    """A reference file: a public https URL or a base64 data URI."""

    type: Literal["image", "video", "audio"]
    url: str


class _VideoGenerateRequired(TypedDict):
    model: VideoModel


class VideoGenerateParams(_VideoGenerateRequired, total=False):
    """POST /api/video/generate (and /api/video/quote) body."""

    prompt: Optional[str]
    duration: Optional[int]
    ratio: Optional[Literal["16:9", "9:16", "1:1"]]
    resolution: Optional[Literal["480p", "720p", "768p", "1080p"]]
    media: Optional[List[MediaItem]]
    ref_mode: Optional[Literal["omni", "first-last", "okay", "lip-sync"]]
    first_frame: Optional[str]
    last_frame: Optional[str]
    optimize_prompt: Optional[bool]
    seed: Optional[int]
    effort: Optional[Literal["1x", "1.5x", "2x"]]
    tier: Optional[Literal["official", "third-party"]]
    variant: Optional[Literal["video-c-3.1-fast", "video-c-3.1-components", "video-c-3.1-pro"]]
    client_request_id: Optional[str]
    callback_url: Optional[str]
    max_cost_cents: Optional[int]


class _ImageGenerateRequired(TypedDict):
    model: ImageModel
    prompt: str


class ImageGenerateParams(_ImageGenerateRequired, total=False):
    """POST /api/image/generate (and /api/image/quote) body."""

    ratio: Optional[Literal["1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3", "21:9"]]
    resolution: Optional[Literal["1k", "2k", "4k"]]
    images: Optional[List[str]]
    client_request_id: Optional[str]
    callback_url: Optional[str]
    max_cost_cents: Optional[int]


class _SubmitRequired(TypedDict):
    taskId: str
    generationId: str
    status: TaskStatus
    costCents: int


class SubmitResponse(_SubmitRequired, total=False):
    """The answer of a generate call; `idempotentReplay` when it replays an earlier one."""

    resultUrls: List[str]
    idempotentReplay: Literal[True]


class _TaskRequired(TypedDict):
    status: TaskStatus
    type: TaskType


class Task(_TaskRequired, total=False):
    """A task as a poll answers it: progress while processing, resultUrls when completed, error fields when failed."""

    progress: int
    resultUrls: List[str]
    errorCode: TaskErrorCode
    retryable: bool
    errorMessage: str
    # ISO 8601: when a completed task's result files are deleted (RESULT_RETENTION_SECONDS).
    expiresAt: str


class _TaskListItemRequired(_TaskRequired):
    taskId: str
    model: str
    createdAt: str
    # The prompt sent upstream (after optimize_prompt's rewrite); None while a rewrite is pending.
    effectivePrompt: Optional[str]


class TaskListItem(_TaskListItemRequired, total=False):
    """One item of GET /api/tasks: the poll body plus taskId, model and createdAt."""

    progress: int
    resultUrls: List[str]
    errorCode: TaskErrorCode
    retryable: bool
    errorMessage: str
    # ISO 8601: when a completed task's result files are deleted (RESULT_RETENTION_SECONDS).
    expiresAt: str


class TaskPage(TypedDict):
    """A page of GET /api/tasks; nextCursor is None on the last page."""

    data: List[TaskListItem]
    nextCursor: Optional[str]


class _CancelRequired(_TaskRequired):
    taskId: str


class CancelResult(_CancelRequired, total=False):
    """The task after a cancel: failed with errorCode cancelled (200), or processing with cancelRequested (202)."""

    progress: int
    resultUrls: List[str]
    errorCode: TaskErrorCode
    retryable: bool
    errorMessage: str
    # ISO 8601: when a completed task's result files are deleted (RESULT_RETENTION_SECONDS).
    expiresAt: str
    cancelRequested: Literal[True]


class Balance(TypedDict):
    balanceCents: int
    topUpUrl: str


class _QuoteRequired(TypedDict):
    costCents: int
    model: str
    type: TaskType


class Quote(_QuoteRequired, total=False):
    """What a generate body would cost; nothing was created or charged."""

    billedSeconds: int
    outputSeconds: int
    variant: str


class ErrorDetail(TypedDict):
    path: str
    message: str


class _WebhookDataRequired(_TaskRequired):
    taskId: str
    model: str


class WebhookEventData(_WebhookDataRequired, total=False):
    effectivePrompt: Optional[str]
    progress: int
    resultUrls: List[str]
    errorCode: TaskErrorCode
    retryable: bool
    errorMessage: str
    # ISO 8601: when a completed task's result files are deleted (RESULT_RETENTION_SECONDS).
    expiresAt: str


class WebhookEvent(TypedDict):
    """A Standard Webhooks event body: task.completed or task.failed."""

    type: Literal["task.completed", "task.failed"]
    timestamp: str
    data: WebhookEventData


GenerateParams = Union[VideoGenerateParams, ImageGenerateParams]
