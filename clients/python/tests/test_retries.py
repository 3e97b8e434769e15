"""The request path without a server: httpx's MockTransport answers as the service would. One
idempotency key on every retry; retries on no answer, 409 idempotency_in_progress, 429 after its
Retry-After and 5xx; other refusals raised at once as typed errors with status, code, request id."""

import asyncio
import time
import unittest

import httpx

from mediagen import (
    APIConnectionError,
    AsyncMediaGen,
    BadRequestError,
    CostAboveLimitError,
    InsufficientBalanceError,
    InternalServerError,
    MediaGen,
    NotFoundError,
    RateLimitError,
)

SUBMIT = {"taskId": "t1", "generationId": "t1", "status": "pending", "costCents": 4}


def scripted(answers):
    """A transport that answers the n-th request with answers[n] (a Response, or an exception to raise)."""
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((time.monotonic(), request))
        a = answers[min(len(seen), len(answers)) - 1]
        if isinstance(a, Exception):
            raise a
        return a

    return seen, handler


def err(status, code, headers=None):
    return httpx.Response(status, json={"error": f"{code} text", "code": code}, headers={"X-Request-Id": "req-1", **(headers or {})})


class Retries(unittest.TestCase):
    def client(self, answers, **kw):
        seen, handler = scripted(answers)
        return seen, MediaGen(api_key="mg_test", base_url="http://svc.test", transport=httpx.MockTransport(handler), **kw)

    def test_one_idempotency_key_on_every_retry(self):
        seen, mg = self.client([
            httpx.ConnectError("refused"),
            err(409, "idempotency_in_progress", {"Retry-After": "0"}),
            err(503, "service_unavailable", {"Retry-After": "0"}),
            httpx.Response(200, json=SUBMIT),
        ])
        out = mg.videos.generate({"model": "video-a-h3", "prompt": "p"})
        self.assertEqual(out, SUBMIT)
        keys = {r.headers["Idempotency-Key"] for _, r in seen}
        self.assertEqual(len(seen), 4)
        self.assertEqual(len(keys), 1)
        self.assertEqual(seen[0][1].headers["Authorization"], "Bearer mg_test")
        self.assertTrue(seen[0][1].headers["User-Agent"].startswith("mediagen-python/"))

    def test_own_key_and_max_cost_cents_are_sent(self):
        seen, mg = self.client([httpx.Response(200, json=SUBMIT)])
        mg.images.generate({"model": "image-b-2.5", "prompt": "p"}, idempotency_key="order-7", max_cost_cents=5)
        req = seen[0][1]
        self.assertEqual(req.headers["Idempotency-Key"], "order-7")
        self.assertIn(b'"max_cost_cents":5', req.content)

    def test_429_waits_out_retry_after(self):
        seen, mg = self.client([err(429, "rate_limited", {"Retry-After": "1"}), httpx.Response(200, json={"balanceCents": 5, "topUpUrl": "u"})])
        self.assertEqual(mg.balance()["balanceCents"], 5)
        self.assertGreaterEqual(seen[1][0] - seen[0][0], 0.99)

    def test_a_retry_after_longer_than_allowed_is_raised(self):
        seen, mg = self.client([err(429, "too_many_tasks", {"Retry-After": "120"})], max_retry_after=60)
        with self.assertRaises(RateLimitError) as ctx:
            mg.balance()
        self.assertEqual(ctx.exception.retry_after, 120)
        self.assertEqual(len(seen), 1)

    def test_5xx_retried_max_retries_times_then_raised(self):
        seen, mg = self.client([err(500, "internal_error", {"Retry-After": "0"})], max_retries=2)
        with self.assertRaises(InternalServerError):
            mg.balance()
        self.assertEqual(len(seen), 3)

    def test_connection_errors_become_api_connection_error_after_the_retries(self):
        seen, mg = self.client([httpx.ConnectError("refused")], max_retries=1)
        with self.assertRaises(APIConnectionError):
            mg.balance()
        self.assertEqual(len(seen), 2)

    def test_refusals_are_typed_and_not_retried(self):
        body = {"error": "duration: bad", "code": "validation_error", "details": [{"path": "duration", "message": "bad"}]}
        seen, mg = self.client([httpx.Response(400, json=body, headers={"X-Request-Id": "req-9"})])
        with self.assertRaises(BadRequestError) as ctx:
            mg.videos.generate({"model": "video-a-h3", "prompt": "p", "duration": 99})
        e = ctx.exception
        self.assertEqual((e.status, e.code, e.request_id, e.details), (400, "validation_error", "req-9", body["details"]))
        self.assertEqual(len(seen), 1)

    def test_402_and_422_cost_above_limit_carry_their_fields(self):
        _, mg = self.client([httpx.Response(402, json={"error": "x", "code": "insufficient_balance", "costCents": 9, "balanceCents": 2, "topUpUrl": "https://t"})])
        with self.assertRaises(InsufficientBalanceError) as ctx:
            mg.images.generate({"model": "image-b-2.5", "prompt": "p"})
        self.assertEqual((ctx.exception.cost_cents, ctx.exception.balance_cents, ctx.exception.top_up_url), (9, 2, "https://t"))
        _, mg = self.client([httpx.Response(422, json={"error": "x", "code": "cost_above_limit", "costCents": 20, "maxCostCents": 5})])
        with self.assertRaises(CostAboveLimitError) as ctx2:
            mg.images.quote({"model": "image-a-5.0", "prompt": "p"}, max_cost_cents=5)
        self.assertIsInstance(ctx2.exception, BadRequestError)
        self.assertEqual((ctx2.exception.cost_cents, ctx2.exception.max_cost_cents), (20, 5))

    def test_get_finds_the_kind_and_encodes_the_id(self):
        seen, mg = self.client([err(404, "not_found"), httpx.Response(200, json={"status": "completed", "type": "image", "resultUrls": []})])
        self.assertEqual(mg.tasks.get("a/b")["type"], "image")
        self.assertEqual([r.url.raw_path for _, r in seen], [b"/api/video/tasks/a%2Fb", b"/api/image/tasks/a%2Fb"])
        with self.assertRaises(NotFoundError):
            self.client([err(404, "not_found")])[1].tasks.get("x")

    def test_list_iterates_every_item_across_pages(self):
        item = lambda i: {"taskId": f"t{i}", "status": "completed", "type": "image", "model": "image-b-2.5", "createdAt": "2026-01-01T00:00:00Z"}
        seen, mg = self.client([httpx.Response(200, json={"data": [item(3), item(2)], "nextCursor": "c1"}), httpx.Response(200, json={"data": [item(1)], "nextCursor": None})])
        self.assertEqual([t["taskId"] for t in mg.tasks.list(status="completed", limit=2)], ["t3", "t2", "t1"])
        self.assertEqual(seen[1][1].url.params["cursor"], "c1")
        self.assertNotIn("type", seen[0][1].url.params)


class AsyncRetries(unittest.TestCase):
    def test_async_client_retries_with_one_key_and_raises_typed_errors(self):
        seen, handler = scripted([httpx.ConnectError("reset"), err(502, "internal_error", {"Retry-After": "0"}), httpx.Response(200, json=SUBMIT), err(401, "unauthorized")])

        async def main():
            async with AsyncMediaGen(api_key="mg_test", base_url="http://svc.test", transport=httpx.MockTransport(handler)) as mg:
                out = await mg.videos.generate({"model": "video-a-h3", "prompt": "p"})
                with self.assertRaises(Exception) as ctx:
                    await mg.balance()
                return out, ctx.exception

        out, e = asyncio.run(main())
        self.assertEqual(out, SUBMIT)
        self.assertEqual(len({r.headers["Idempotency-Key"] for _, r in seen[:3]}), 1)
        self.assertEqual((type(e).__name__, e.status), ("AuthenticationError", 401))


if __name__ == "__main__":
    unittest.main()
