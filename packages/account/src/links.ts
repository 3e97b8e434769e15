// Emailed single-use links (verify the address, reset the password): 256 random bits in the link,
// only their sha256 in HolderToken, with an expiry; used once by compare-and-set (packages/db).
import { randomBytes } from 'node:crypto';
import { createHolderToken, HolderTokenPurpose } from '@mediagen/db';
import { sha256 } from '@mediagen/console';
import type { AccountDeps } from './deps';

export const LINK_TTL_MS: Record<HolderTokenPurpose, number> = {
  verify: 24 * 3600_000,
  reset: 3600_000,
  invite: 7 * 24 * 3600_000,
};

/** A new token of `purpose`; returns the secret that goes in the link. */
export async function newLinkToken(deps: Pick<AccountDeps, 'db'>, purpose: HolderTokenPurpose, holderId: string | null, createdBy?: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await createHolderToken(deps.db, { id: sha256(token), purpose, holderId, createdBy, expiresAt: new Date(Date.now() + LINK_TTL_MS[purpose]) });
  return token;
}

/** The stored id of a token from a link or form, or undefined when it cannot be one. */
export const linkTokenId = (v: unknown): string | undefined => (typeof v === 'string' && /^[A-Za-z0-9_-]{43}$/.test(v) ? sha256(v) : undefined);

export async function sendVerifyLink(deps: AccountDeps, holderId: string, email: string): Promise<void> {
  const token = await newLinkToken(deps, 'verify', holderId);
  await deps.mailer.send({
    to: email,
    subject: 'Confirm your email address',
    text: `Confirm your address to start using your account:\n\n${deps.publicBaseUrl}/account/verify?token=${token}\n\nThe link works once, for 24 hours. If you did not sign up, ignore this message.\n`,
  });
}

export async function sendResetLink(deps: AccountDeps, holderId: string, email: string): Promise<void> {
  const token = await newLinkToken(deps, 'reset', holderId);
  await deps.mailer.send({
    to: email,
    subject: 'Reset your password',
    text: `Choose a new password here:\n\n${deps.publicBaseUrl}/account/reset?token=${token}\n\nThe link works once, for an hour. If you did not ask for it, ignore this message: your password stays as it is.\n`,
  });
}

/** A sign-up for an address that already has an account: tell its owner, not the form (no address probing). */
export async function sendAlreadyRegistered(deps: AccountDeps, email: string): Promise<void> {
  await deps.mailer.send({
    to: email,
    subject: 'You already have an account',
    text: `Someone (perhaps you) tried to sign up with this address, which already has an account.\n\nSign in: ${deps.publicBaseUrl}/account/signin\nForgot your password? ${deps.publicBaseUrl}/account/forgot\n`,
  });
}
