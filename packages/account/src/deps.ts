// What the account pages need from the process that mounts them (the gateway builds it in
// routes/account.routes.ts). Key issue and revocation, webhook re-send and the callback URL policy
// come in as functions so the holder's pages use the very code the admin API uses.
import type { Cluster, Redis } from 'ioredis';
import type { SoldCatalog } from '@mediagen/catalog';
import type { Db } from '@mediagen/db';
import type { Mailer } from './mailer';
import type { StripeBilling } from './stripe-billing';

/** Who made a change, for the audit trail. */
export interface HolderActor {
  holderId: string;
  email: string;
  ip: string | null;
}

export interface AccountDeps {
  db: Db;
  redis: Redis | Cluster;
  redisPrefix: string;
  /** https origin of links in emails and Stripe's return URLs. */
  publicBaseUrl: string;
  secureCookies: boolean;
  cacheTemplates: boolean;
  signupMode: 'open' | 'invite' | 'closed';
  signupBalanceCents: number;
  mailer: Mailer;
  /** null: card top-ups are off (no Stripe settings); the top-up page says the operator tops up. */
  stripe: StripeBilling | null;
  topUp: { minCents: number; maxCents: number; currency: string };
  /** What this deployment sells (SOLD_MODELS): the balance page lists these models with their prices. */
  sold: SoldCatalog;
  /** Creates a named key unless the account has its 20 live keys already (null then). */
  issueApiKey(accountId: string, name: string, by: HolderActor): Promise<{ id: string; key: string; prefix: string } | null>;
  /** Revokes the account's key everywhere (every gateway's auth cache); false when the account has no such live key. */
  revokeApiKey(accountId: string, keyId: string, by: HolderActor): Promise<boolean>;
  /** Records a holder's change that its own package wrote (webhook endpoints). */
  audit(e: { by: HolderActor; accountId: string; action: string; targetType: string; targetId: string; before?: unknown; after?: unknown }): Promise<void>;
  resendDelivery(deliveryId: string): Promise<boolean>;
  /** The admin API's URL policy for webhook targets: the normalised URL, or throws with the reason. */
  checkWebhookUrl(url: string): string;
  webhookSecretOverlapMs: number;
  logError(err: unknown, msg: string): void;
  logInfo(fields: Record<string, unknown>, msg: string): void;
}
