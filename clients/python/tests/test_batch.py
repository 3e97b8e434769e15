"""client.batch: keys derived exactly as the TypeScript SDK derives them; against the running
stack, a batch above the account's in-progress limit completes every item once, and running it
again creates and charges nothing (sync and async)."""

import asyncio
import hashlib
import unittest

from mediagen import AsyncMediaGen, MediaGen, batch_keys

from support import BASE_URL, needs_stack, new_account


class Keys(unittest.TestCase):
    def test_same_derivation_as_the_typescript_sdk(self):
        # packages/client/test/batch.test.ts asserts the same value for the same item.
        expected = "batch-" + hashlib.sha256(b'\nimage\n{"model":"image-b-2.5","prompt":"a fox"}\n0').hexdigest()[:48]
        self.assertEqual(batch_keys([{"prompt": "a fox", "model": "image-b-2.5"}]), [expected])
        keys = batch_keys([{"model": "image-b-2.5", "prompt": "a"}, {"model": "image-b-2.5", "prompt": "a"}])
        self.assertNotEqual(keys[0], keys[1])
        self.assertNotEqual(batch_keys([{"model": "image-b-2.5", "prompt": "a"}], "run-2"), keys[:1])


@needs_stack
class Batch(unittest.TestCase):
    def test_above_the_limit_every_item_completes_once_and_a_rerun_charges_nothing(self):
        mg = MediaGen(api_key=new_account(10_000, max_concurrent_tasks=2), base_url=BASE_URL)
        items = [{"model": "image-b-2.5", "prompt": f"py fox {i}"} for i in range(5)] + [{"model": "image-b-2.5", "prompt": "x", "ratio": "5:4"}]
        progress = []
        out = mg.batch(items, concurrency=4, on_progress=lambda p, o: progress.append(p))
        self.assertEqual([o.status for o in out], ["completed"] * 5 + ["refused"])
        self.assertEqual(out[5].error.code, "validation_error")
        self.assertLessEqual(max(p.in_flight for p in progress), 2)
        self.assertEqual(progress[-1].done, 6)
        balance = mg.balance()["balanceCents"]
        self.assertEqual(balance, 10_000 - 5 * 3)
        again = mg.batch(items, concurrency=4)
        self.assertEqual([o.task_id for o in again], [o.task_id for o in out])
        self.assertEqual(mg.balance()["balanceCents"], balance)

    def test_async_batch(self):
        async def main():
            async with AsyncMediaGen(api_key=new_account(10_000, max_concurrent_tasks=2), base_url=BASE_URL) as mg:
                out = await mg.batch([{"model": "image-b-2.5", "prompt": f"async {i}"} for i in range(4)], concurrency=3)
                return out, (await mg.balance())["balanceCents"]

        out, balance = asyncio.run(main())
        self.assertEqual([o.status for o in out], ["completed"] * 4)
        self.assertEqual(balance, 10_000 - 4 * 3)


if __name__ == "__main__":
    unittest.main()
