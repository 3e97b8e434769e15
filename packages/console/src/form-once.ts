// A form posted twice (double click, a browser's "resend", a retry after a timeout) acts once: each
// write form carries a random `_once` value rendered with the page, used as an admin
// Idempotency-Key (packages/db admin-idempotency.ts). The repeat is sent where the first went.
import { createHash, randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { claimAdminIdempotencyKey, Db, finishAdminIdempotencyKey } from '@mediagen/db';
import { ConsoleError } from './console-error';

export const newOnceToken = () => randomBytes(16).toString('base64url');

/** Runs `write` once per form token; returns where to send the browser (the first run's answer on repeats). */
export async function oncePerForm(db: Db, req: Request, write: () => Promise<string>): Promise<string> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const token = typeof body._once === 'string' && /^[A-Za-z0-9_-]{16,64}$/.test(body._once) ? body._once : null;
  if (!token) return write();
  const { _csrf: _c, _once: _o, ...fields } = body;
  const fingerprint = createHash('sha256').update(JSON.stringify([req.method, req.originalUrl, fields])).digest('hex');
  const key = `console:${token}`;
  const claim = await claimAdminIdempotencyKey(db, key, fingerprint);
  if (claim.state === 'replay') return claim.body;
  if (claim.state === 'busy') throw new ConsoleError(409, 'This form is still being processed. Wait a moment and reload the page.');
  if (claim.state === 'mismatch') throw new ConsoleError(422, 'This form was already used for another change. Reload the page and fill it in again.');
  try {
    const location = await write();
    await finishAdminIdempotencyKey(db, key, 303, location);
    return location;
  } catch (e) {
    await finishAdminIdempotencyKey(db, key, 500, '').catch(() => undefined);
    throw e;
  }
}
