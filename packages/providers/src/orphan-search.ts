// Shared rules of the orphan searches (ChannelAdapter.findOrphan): which renders of an upstream's
// list are old enough to be someone else's, and how many pages we read before giving up. A search
// that reads nothing conclusive answers null, and the worker submits again (a possible double
// render, counted): the search narrows the window, it never blocks a task.
import { createHash } from 'node:crypto';

/** Renders created earlier than the first send, less this, cannot be ours (clocks of two hosts differ). */
export const ORPHAN_CLOCK_SKEW_MS = 120_000;
/** Pages of a list read per search (ModelArk and Replicate pages hold 100 renders). */
export const ORPHAN_MAX_PAGES = 5;
export const ORPHAN_PAGE_SIZE = 100;

/** Epoch ms from which a render may be this attempt's orphan; 0 when the send time is unknown. */
export const orphanSince = (submitSentAt: Date | undefined): number => (submitSentAt ? submitSentAt.getTime() - ORPHAN_CLOCK_SKEW_MS : 0);

/**
 * A seed that names the attempt: 31 bits of SHA-256 of its id (within every seed range the notes
 * give, -1..2^32-1, and a signed 32-bit integer for strict readers). Sent when the client chose no
 * seed, where the model would have drawn a random one anyway, so the attempt's render can be found
 * in a list that echoes seeds.
 */
export function attemptSeed(attemptId: string): number {
  return createHash('sha256').update(attemptId).digest().readUInt32BE(0) >>> 1;
}

/** JSON with object keys sorted: an echo may list the keys in another order. */
const canonical = (v: unknown): string =>
  Array.isArray(v) ? `[${v.map(canonical).join(',')}]`
    : v && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`
      : JSON.stringify(v) ?? 'null';

/** True when every field of `sent` equals the same field of `echoed` (an upstream may add defaults). */
export function sameFields(sent: Record<string, unknown>, echoed: unknown): boolean {
  if (!echoed || typeof echoed !== 'object' || Array.isArray(echoed)) return false;
  const e = echoed as Record<string, unknown>;
  return Object.entries(sent).every(([k, v]) => canonical(v) === canonical(e[k]));
}
