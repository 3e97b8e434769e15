"""Standard Webhooks verification: a signature made as the scheme says verifies (also with a list of
secrets during a rotation); a tampered body, an old timestamp, a wrong secret or missing headers
raise WebhookVerificationError."""

import base64
import hashlib
import hmac
import json
import time
import unittest

from mediagen import MediaGen, WebhookVerificationError, verify_webhook

SECRET = "whsec_" + base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
OTHER = "whsec_" + base64.b64encode(b"another-secret-of-32-bytes-long!").decode()
BODY = json.dumps({"type": "task.completed", "timestamp": "2026-01-01T00:00:05Z", "data": {"taskId": "t1", "model": "image-b-2.5", "status": "completed", "type": "image", "resultUrls": []}})


def signed(body: str, secret: str = SECRET, ts: int = None, msg_id: str = "msg_1"):
    ts = int(time.time()) if ts is None else ts
    key = base64.b64decode(secret[len("whsec_"):])
    sig = base64.b64encode(hmac.new(key, f"{msg_id}.{ts}.{body}".encode(), hashlib.sha256).digest()).decode()
    return {"Webhook-Id": msg_id, "Webhook-Timestamp": str(ts), "Webhook-Signature": f"v1,{sig}"}


class Webhooks(unittest.TestCase):
    def test_verifies_and_parses(self):
        event = verify_webhook(BODY.encode(), signed(BODY), SECRET)
        self.assertEqual(event["data"]["taskId"], "t1")
        mg = MediaGen(api_key="mg_x", base_url="http://svc.test")
        self.assertEqual(mg.webhooks.verify(BODY, signed(BODY), [OTHER, SECRET])["type"], "task.completed")

    def test_refuses_what_is_not_authentic_or_fresh(self):
        cases = {
            "tampered": (BODY.replace("t1", "t2"), signed(BODY), SECRET),
            "wrong secret": (BODY, signed(BODY), OTHER),
            "old": (BODY, signed(BODY, ts=int(time.time()) - 600), SECRET),
            "missing header": (BODY, {"webhook-id": "m"}, SECRET),
        }
        for name, (body, headers, secret) in cases.items():
            with self.subTest(name), self.assertRaises(WebhookVerificationError):
                verify_webhook(body, headers, secret)


if __name__ == "__main__":
    unittest.main()
