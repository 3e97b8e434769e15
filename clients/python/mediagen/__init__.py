"""mediagen: the Python SDK of the media generation task service (sync and async, on httpx).

    from mediagen import MediaGen
    mg = MediaGen()  # MEDIAGEN_API_KEY, MEDIAGEN_BASE_URL
    task = mg.images.generate({"model": "image-b-2.5", "prompt": "A red fox in fresh snow"})
    done = mg.tasks.wait(task["taskId"], on_progress=lambda t: print(t["status"]))
    print(done.get("resultUrls") or done.get("errorCode"))
"""

from ._async_client import AsyncMediaGen
from ._client import MediaGen
from ._version import __version__
from .errors import (
    APIConnectionError,
    APIError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    CostAboveLimitError,
    InsufficientBalanceError,
    InternalServerError,
    MediaGenError,
    NotFoundError,
    RateLimitError,
)
from .batch import BatchOutcome, BatchProgress, batch_keys
from .webhooks import WebhookVerificationError, verify as verify_webhook

__all__ = [
    "MediaGen",
    "AsyncMediaGen",
    "__version__",
    "MediaGenError",
    "APIError",
    "APIConnectionError",
    "BadRequestError",
    "CostAboveLimitError",
    "AuthenticationError",
    "InsufficientBalanceError",
    "NotFoundError",
    "ConflictError",
    "RateLimitError",
    "InternalServerError",
    "WebhookVerificationError",
    "verify_webhook",
    "BatchOutcome",
    "BatchProgress",
    "batch_keys",
]
