"""What the stack tests share: the running service named by the environment (set by the jest wrapper
test/e2e/python-sdk.e2e.test.ts), and an admin call to make accounts."""

import os
import unittest

import httpx

BASE_URL = os.environ.get("MEDIAGEN_BASE_URL", "")
API_KEY = os.environ.get("MEDIAGEN_API_KEY", "")
ADMIN_TOKEN = os.environ.get("MEDIAGEN_ADMIN_TOKEN", "")

needs_stack = unittest.skipUnless(BASE_URL and API_KEY and ADMIN_TOKEN, "no running stack (MEDIAGEN_BASE_URL, MEDIAGEN_API_KEY, MEDIAGEN_ADMIN_TOKEN)")


def admin(method: str, path: str, body=None):
    r = httpx.request(method, f"{BASE_URL}/admin{path}", json=body, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=30)
    r.raise_for_status()
    return r.json() if r.content else None


def new_account(balance_cents: int, max_concurrent_tasks: int = 20) -> str:
    """A fresh account's API key."""
    acc = admin("POST", "/accounts", {"name": "python-sdk", "balanceCents": balance_cents, "maxConcurrentTasks": max_concurrent_tasks})
    return admin("POST", f"/accounts/{acc['id']}/api-keys")["key"]
