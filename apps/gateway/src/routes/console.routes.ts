// The operators' console (packages/console) at /console, wired to this gateway's connections.
import type { Router } from 'express';
import { consoleRouter } from '@mediagen/console';
import { runChannelChecks } from '@mediagen/channel-check';
import { saveCheckResults } from '@mediagen/channel-health';
import type { GatewayDeps } from '../deps';
import { newLinkToken } from '@mediagen/account';
import { issueApiKey, revokeKeyEverywhere, setAccountDisabledEverywhere } from '../services/key-admin';
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
    defaultResultRetentionSeconds: deps.config.RESULT_RETENTION_SECONDS,
    issueApiKey: (accountId, audit) => issueApiKey(deps, accountId, audit),
    revokeApiKey: (keyId, audit) => revokeKeyEverywhere(deps, keyId, audit),
    resendDelivery: (deliveryId) => resendDelivery(deps, deliveryId),
    createWebhook: (accountId, url, events) => createWebhookEndpoint(deps, accountId, url, events),
    // The same check as `npm run channels:check`, for one channel; the results are stored for the
    // channel page, and a model found again is re-enabled.
    checkChannel: async (channelId) => {
      const results = await runChannelChecks(deps.channels, deps.adapters, { timeoutMs: deps.config.CHANNEL_CHECK_TIMEOUT_MS, channelIds: [channelId] });
      await saveCheckResults(deps.redis, deps.config.REDIS_PREFIX, results);
      return results.length;
    },
    logError: (err, msg) => deps.log.error({ err }, msg),
    holders: {
      signupMode: deps.config.SIGNUP_MODE,
      setDisabled: (accountId, disabled, actor, ip) => setAccountDisabledEverywhere(deps, accountId, disabled, actor, ip),
      createInvite: async (createdBy) => `${deps.config.PUBLIC_BASE_URL}/account/signup?invite=${await newLinkToken({ db: deps.db }, 'invite', null, createdBy)}`,
    },
  });
}
