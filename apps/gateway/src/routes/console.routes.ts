// The operators' console (packages/console) at /console, wired to this gateway's connections.
import type { Router } from 'express';
import { consoleRouter } from '@mediagen/console';
import type { GatewayDeps } from '../deps';
import { issueApiKey, revokeKeyEverywhere } from '../services/key-admin';
import { resendDelivery } from '../services/webhook-resend';
import { createWebhookEndpoint } from '../services/webhook-create';

export function mountConsole(deps: GatewayDeps): Router {
  const production = deps.config.NODE_ENV === 'production';
  return consoleRouter({
    db: deps.db,
    redis: deps.redis,
    redisPrefix: deps.config.REDIS_PREFIX,
    secureCookies: production,
    // Re-read on every request only in development, where templates are being edited.
    cacheTemplates: deps.config.NODE_ENV !== 'development',
    defaultRateLimitPerMinute: deps.config.RATE_LIMIT_PER_MINUTE,
    issueApiKey: (accountId) => issueApiKey(deps, accountId),
    revokeApiKey: (keyId) => revokeKeyEverywhere(deps, keyId),
    resendDelivery: (deliveryId) => resendDelivery(deps, deliveryId),
    createWebhook: (accountId, url, events) => createWebhookEndpoint(deps, accountId, url, events),
    logError: (err, msg) => deps.log.error({ err }, msg),
  });
}
