"""The SDK against the running stack (gateway, worker, provider simulator): what a user of the
sync and the async client sees. Images and videos complete with progress reported, failures are
returned (refunded), balance and quote agree with the charge, typed errors carry their fields,
the listing iterates across pages, cancel refunds, and a repeated idempotency key charges once."""

import asyncio
import unittest

import httpx

from mediagen import AsyncMediaGen, AuthenticationError, BadRequestError, CostAboveLimitError, InsufficientBalanceError, MediaGen

from support import API_KEY, BASE_URL, needs_stack, new_account

VIDEO = {"model": "video-a-h3", "duration": 2, "resolution": "480p", "ratio": "16:9"}


@needs_stack
class SyncClient(unittest.TestCase):
    def setUp(self):
        self.mg = MediaGen(api_key=API_KEY, base_url=BASE_URL)
        self.addCleanup(self.mg.close)

    def test_image_completes_with_progress_and_its_file_is_a_png(self):
        before = self.mg.balance()["balanceCents"]
        task = self.mg.images.generate({"model": "image-b-2.5", "prompt": "A red fox in fresh snow", "ratio": "16:9"})
        self.assertEqual(task["costCents"], 3)
        seen = []
        done = self.mg.tasks.wait(task["taskId"], on_progress=lambda t: seen.append(t["status"]))
        self.assertEqual(done["status"], "completed")
        self.assertEqual(seen[-1], "completed")
        png = httpx.get(done["resultUrls"][0], timeout=30)
        self.assertEqual(png.status_code, 200)
        self.assertEqual(png.content[1:4], b"PNG")
        self.assertEqual(self.mg.balance()["balanceCents"], before - 3)

    def test_wait_follows_the_event_stream_without_polling(self):
        paths = []

        class Counting(httpx.HTTPTransport):
            def handle_request(self, request):
                paths.append(request.url.path)
                return super().handle_request(request)

        with MediaGen(api_key=API_KEY, base_url=BASE_URL, transport=Counting()) as mg:
            sub = mg.videos.generate({**VIDEO, "prompt": "a slow fox #sim:delay=1500"})
            seen = []
            done = mg.tasks.wait(sub["taskId"], on_progress=lambda t: seen.append(t["status"]))
        self.assertEqual(done["status"], "completed")
        self.assertEqual(seen[-1], "completed")
        self.assertEqual(paths, ["/api/video/generate", f"/api/tasks/{sub['taskId']}/events"])

    def test_video_failure_is_returned_and_refunded(self):
        before = self.mg.balance()["balanceCents"]
        sub = self.mg.videos.generate({**VIDEO, "prompt": "a storm #sim:fail"})
        done = self.mg.tasks.wait(sub["taskId"])
        self.assertEqual((done["status"], done["errorCode"], done["retryable"], done["type"]), ("failed", "generation_failed", True, "video"))
        self.assertEqual(self.mg.balance()["balanceCents"], before)

    def test_wait_timeout_raises_while_the_task_goes_on(self):
        sub = self.mg.videos.generate({**VIDEO, "prompt": "a long wait #sim:hang"})
        with self.assertRaises(TimeoutError):
            self.mg.tasks.wait(sub["taskId"], timeout=1)
        self.assertIn(self.mg.tasks.get(sub["taskId"])["status"], ("pending", "processing"))
        cancelled = self.mg.tasks.cancel(sub["taskId"])
        self.assertTrue(cancelled["status"] == "failed" and cancelled["errorCode"] == "cancelled" or cancelled.get("cancelRequested"))

    def test_quote_then_a_ceiling(self):
        before = self.mg.balance()["balanceCents"]
        q = self.mg.videos.quote({"model": "video-b-2.0", "prompt": "a fox", "duration": 4})
        self.assertEqual(q, {"costCents": 65, "billedSeconds": 4, "outputSeconds": 4, "model": "video-b-2.0", "type": "video"})
        with self.assertRaises(CostAboveLimitError) as ctx:
            self.mg.videos.generate({"model": "video-b-2.0", "prompt": "a fox", "duration": 4}, max_cost_cents=64)
        self.assertEqual((ctx.exception.status, ctx.exception.code, ctx.exception.cost_cents), (422, "cost_above_limit", 65))
        self.assertEqual(self.mg.balance()["balanceCents"], before)

    def test_same_idempotency_key_replays_and_charges_once(self):
        before = self.mg.balance()["balanceCents"]
        a = self.mg.images.generate({"model": "image-b-2.5", "prompt": "a heron"}, idempotency_key="py-order-1")
        b = self.mg.images.generate({"model": "image-b-2.5", "prompt": "a heron"}, idempotency_key="py-order-1")
        self.assertEqual(a["taskId"], b["taskId"])
        self.assertTrue(b.get("idempotentReplay"))
        self.assertEqual(self.mg.balance()["balanceCents"], before - 3)

    def test_typed_errors(self):
        with self.assertRaises(BadRequestError) as bad:
            self.mg.images.generate({"model": "image-b-2.5", "prompt": ""})
        self.assertEqual((bad.exception.status, bad.exception.code), (400, "validation_error"))
        self.assertTrue(bad.exception.request_id)
        self.assertEqual(bad.exception.details[0]["path"], "prompt")
        poor = MediaGen(api_key=new_account(1), base_url=BASE_URL)
        with self.assertRaises(InsufficientBalanceError) as e402:
            poor.videos.generate({**VIDEO, "prompt": "a fox", "duration": 10})
        self.assertEqual((e402.exception.balance_cents, e402.exception.code), (1, "insufficient_balance"))
        self.assertGreater(e402.exception.cost_cents, 1)
        with self.assertRaises(AuthenticationError):
            MediaGen(api_key="mg_" + "x" * 40, base_url=BASE_URL).balance()

    def test_listing_iterates_across_pages(self):
        mg = MediaGen(api_key=new_account(1000), base_url=BASE_URL)
        ids = [mg.images.generate({"model": "image-b-2.5", "prompt": f"item {i}"})["taskId"] for i in range(3)]
        listed = [t["taskId"] for t in mg.tasks.list(limit=2)]
        self.assertEqual(listed, list(reversed(ids)))
        self.assertEqual(len(list(mg.tasks.list_pages(limit=2))), 2)


@needs_stack
class AsyncClient(unittest.TestCase):
    def test_generate_wait_list_balance(self):
        async def main():
            async with AsyncMediaGen(api_key=new_account(1000), base_url=BASE_URL) as mg:
                subs = await asyncio.gather(*(mg.images.generate({"model": "image-b-2.5", "prompt": f"fox {i}"}) for i in range(3)))
                seen = []
                done = await asyncio.gather(*(mg.tasks.wait(s["taskId"], on_progress=lambda t: seen.append(t["status"])) for s in subs))
                listed = [t["taskId"] async for t in mg.tasks.list(limit=2)]
                q = await mg.images.quote({"model": "image-b-2.5", "prompt": "x"})
                return subs, done, listed, (await mg.balance())["balanceCents"], q, seen

        subs, done, listed, balance, q, seen = asyncio.run(main())
        self.assertEqual([d["status"] for d in done], ["completed"] * 3)
        self.assertEqual(sorted(listed), sorted(s["taskId"] for s in subs))
        self.assertEqual(balance, 1000 - 3 * 3)
        self.assertEqual(q["costCents"], 3)
        self.assertIn("completed", seen)


if __name__ == "__main__":
    unittest.main()
