// What the console needs from the process that mounts it (the gateway builds it in app.ts). Key
// issue and revocation come in as functions so the console uses the very code the admin API uses
// (same key format, same revocation broadcast to every gateway).
import type { Cluster, Redis } from 'ioredis';
import type { AuditActor, AuditContext, Db } from '@mediagen/db';

export interface ConsoleDeps {
  db: Db;
  /** A single server or a Redis Cluster. */
  redis: Redis | Cluster;
  redisPrefix: string;
  /** Secure cookies (production): the console is then served over HTTPS only. */
  secureCookies: boolean;
  /** Templates are compiled once and cached in production; re-read on change otherwise. */
  cacheTemplates: boolean;
  defaultRateLimitPerMinute: number;
  /** RESULT_RETENTION_SECONDS: what an account without its own result retention gets (0: forever). */
  defaultResultRetentionSeconds: number;
  issueApiKey(accountId: string, audit?: AuditContext): Promise<{ id: string; key: string; prefix: string }>;
  /** false when there is no such key. */
  revokeApiKey(keyId: string, audit?: AuditContext): Promise<boolean>;
  /**
   * Creates a webhook endpoint exactly as POST /admin/accounts/{id}/webhooks does (same URL rules);
   * a refused URL is `{ refused: message }`. The secret is in this answer only.
   */
  createWebhook(accountId: string, url: string, events: string[]): Promise<{ id: string; url: string; secret: string } | { refused: string }>;
  /** Re-sends a webhook delivery exactly as the admin API does; false when there is no such delivery. */
  resendDelivery(deliveryId: string): Promise<boolean>;
  /**
   * Runs the channel check (packages/channel-check) for one channel with its real key and stores
   * the results where the channel page reads them; the number of checks run (0: not in this
   * gateway's channel config).
   */
  checkChannel?(channelId: string): Promise<number>;
  logError(err: unknown, msg: string): void;
  /** The account holders' side (packages/account), when the gateway mounts it. */
  holders?: {
    signupMode: 'open' | 'invite' | 'closed';
    /** Disables or enables the account everywhere (sessions and keys); null for an unknown account. */
    setDisabled(accountId: string, disabled: boolean, actor: AuditActor, ip: string | null): Promise<boolean | null>;
    /** A one-use sign-up link (SIGNUP_MODE=invite). */
    createInvite(createdBy: string): Promise<string>;
  };
}
