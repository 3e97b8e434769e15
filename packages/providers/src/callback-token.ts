// The per-task token in upstream callback URLs. ModelArk signs nothing, so the only proof that a
// callback comes from the upstream we gave the URL to is a value only that upstream saw: an HMAC of
// channel and task under a secret shared by workers (which put it in the URL) and gateways (which
// check it). Stateless, so no row per task; unguessable without the secret.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** UPSTREAM_CALLBACK_SECRET, or one derived from ADMIN_TOKEN (both processes have it). */
export function callbackSecret(cfg: { UPSTREAM_CALLBACK_SECRET?: string; ADMIN_TOKEN: string }): Buffer {
  if (cfg.UPSTREAM_CALLBACK_SECRET) return Buffer.from(cfg.UPSTREAM_CALLBACK_SECRET, 'utf8');
  return createHash('sha256').update(`mediagen upstream callback token\u0000${cfg.ADMIN_TOKEN}`).digest();
}

export function callbackToken(secret: Buffer, channelId: string, taskId: string): string {
  return createHmac('sha256', secret).update(`${channelId}\u0000${taskId}`).digest('base64url');
}

export function verifyCallbackToken(secret: Buffer, channelId: string, taskId: string, token: string | undefined): boolean {
  if (!token) return false;
  const want = Buffer.from(callbackToken(secret, channelId, taskId));
  const got = Buffer.from(token);
  return got.length === want.length && timingSafeEqual(got, want);
}

/** `${PUBLIC_BASE_URL}/hooks/upstream/{channelId}?task=..&token=..`: where an upstream may call back. */
export function callbackUrl(publicBaseUrl: string, secret: Buffer, channelId: string, taskId: string): string {
  const q = new URLSearchParams({ task: taskId, token: callbackToken(secret, channelId, taskId) });
  return `${publicBaseUrl.replace(/\/+$/, '')}/hooks/upstream/${encodeURIComponent(channelId)}?${q}`;
}
