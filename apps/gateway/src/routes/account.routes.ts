// The account holders' pages (packages/account) at /account and Stripe's events at
// POST /billing/stripe/webhook, wired to this gateway's connections and settings. The mailer and
// the Stripe client are made once per deps (per process), in createDeps.
import type { Router } from 'express';
import { accountRouter, HolderActor, stripeWebhookRouter } from '@mediagen/account';
import { parseCallbackUrl } from '@mediagen/catalog';
import type { GatewayDeps } from '../deps';
import { recordAudit, type AuditActor } from '@mediagen/db';
import { issueNamedApiKey, revokeHolderKeyEverywhere } from '../services/key-admin';
import { resendDelivery } from '../services/webhook-resend';

const holderActor = (by: HolderActor): AuditActor => ({ type: 'holder', id: by.holderId, name: by.email });

export function mountAccount(deps: GatewayDeps): Router {
  const c = deps.config;
  const { mailer, stripe } = deps;
  return accountRouter({
    db: deps.db,
    redis: deps.redis,
    redisPrefix: c.REDIS_PREFIX,
    publicBaseUrl: c.PUBLIC_BASE_URL,
    secureCookies: c.NODE_ENV === 'production',
    cacheTemplates: c.NODE_ENV !== 'development',
    signupMode: c.SIGNUP_MODE,
    signupBalanceCents: c.SIGNUP_BALANCE_CENTS,
    mailer,
    stripe,
    topUp: { minCents: c.TOPUP_MIN_CENTS, maxCents: c.TOPUP_MAX_CENTS, currency: c.TOPUP_CURRENCY },
    sold: deps.sold,
    issueApiKey: (accountId, name, by) => issueNamedApiKey(deps, accountId, name, { actor: holderActor(by), ip: by.ip }),
    revokeApiKey: (accountId, keyId, by) => revokeHolderKeyEverywhere(deps, accountId, keyId, { actor: holderActor(by), ip: by.ip }),
    audit: (e) => recordAudit(deps.db, { actor: holderActor(e.by), ip: e.by.ip, action: e.action, targetType: e.targetType, targetId: e.targetId, accountId: e.accountId, before: e.before, after: e.after }),
    resendDelivery: (id) => resendDelivery(deps, id),
    checkWebhookUrl: (url) => {
      try {
        return parseCallbackUrl(url, { allowPrivateMediaUrls: c.ALLOW_PRIVATE_MEDIA_URLS }, 'url')!;
      } catch (e) {
        const details = (e as { details?: { message: string }[] }).details;
        throw new Error(details?.[0]?.message ?? (e as Error).message);
      }
    },
    webhookSecretOverlapMs: c.WEBHOOK_SECRET_OVERLAP_MS,
    logError: (err, msg) => deps.log.error({ err }, msg),
    logInfo: (fields, msg) => deps.log.info(fields, msg),
  });
}

export function mountStripeWebhook(deps: GatewayDeps): Router {
  return stripeWebhookRouter({
    db: deps.db,
    stripe: deps.stripe,
    logInfo: (fields, msg) => deps.log.info(fields, msg),
    logError: (err, msg) => deps.log.error({ err }, msg),
  });
}
