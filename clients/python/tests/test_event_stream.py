"""tasks.wait on the task event stream, without a server (httpx MockTransport): events reported
once each, the done event returned with no poll made; a stream that ends early resumed with
Last-Event-ID; a service without streams polled. Sync and async clients."""

import asyncio
import unittest

import httpx

from mediagen import AsyncMediaGen, MediaGen

STREAM = (
    "retry: 3000\n\n"
    'id: 1040\r\nevent: status\r\ndata: {"status":"processing","progress":40,"type":"video"}\r\n\r\n'
    ": heartbeat\n\n"
    'id: 2000\nevent: done\ndata: {"status":"completed","resultUrls":["https://x.test/v.mp4"],"type":"video"}\n\n'
)


def sse(text):
    return httpx.Response(200, headers={"Content-Type": "text/event-stream"}, content=text.encode())


class EventStream(unittest.TestCase):
    def test_wait_follows_the_stream(self):
        seen_urls = []

        def handler(request):
            seen_urls.append(request.url.raw_path)
            return sse(STREAM)

        mg = MediaGen(api_key="mg_test", base_url="http://svc.test", transport=httpx.MockTransport(handler))
        seen = []
        done = mg.tasks.wait("t/1", on_progress=lambda t: seen.append((t["status"], t.get("progress"))))
        self.assertEqual(done, {"status": "completed", "resultUrls": ["https://x.test/v.mp4"], "type": "video"})
        self.assertEqual(seen, [("processing", 40), ("completed", None)])
        self.assertEqual(seen_urls, [b"/api/tasks/t%2F1/events"])

    def test_resumes_with_last_event_id_then_polls_a_service_without_streams(self):
        last_ids = []

        def handler(request):
            last_ids.append(request.headers.get("Last-Event-ID"))
            if len(last_ids) == 1:
                return sse('id: 1020\nevent: status\ndata: {"status":"processing","progress":20,"type":"image"}\n\n')
            return sse('id: 2000\nevent: done\ndata: {"status":"failed","errorCode":"timeout","retryable":true,"type":"image"}\n\n')

        mg = MediaGen(api_key="mg_test", base_url="http://svc.test", transport=httpx.MockTransport(handler))
        self.assertEqual(mg.tasks.wait("t")["errorCode"], "timeout")
        self.assertEqual(last_ids, [None, "1020"])

        urls = []

        def old(request):
            urls.append(request.url.path)
            if request.url.path.endswith("/events"):
                return httpx.Response(404, json={"error": "Not found", "code": "not_found"})
            return httpx.Response(200, json={"status": "completed", "resultUrls": [], "type": "image"})

        polled = MediaGen(api_key="mg_test", base_url="http://svc.test", transport=httpx.MockTransport(old)).tasks.wait("t", type="image")
        self.assertEqual(polled["status"], "completed")
        self.assertEqual(urls, ["/api/tasks/t/events", "/api/image/tasks/t"])

    def test_async_wait_follows_the_stream(self):
        async def main():
            async with AsyncMediaGen(api_key="mg_test", base_url="http://svc.test", transport=httpx.MockTransport(lambda r: sse(STREAM))) as mg:
                seen = []
                done = await mg.tasks.wait("t", on_progress=lambda t: seen.append(t["status"]))
                return done, seen

        done, seen = asyncio.run(main())
        self.assertEqual(done["status"], "completed")
        self.assertEqual(seen, ["processing", "completed"])


if __name__ == "__main__":
    unittest.main()
