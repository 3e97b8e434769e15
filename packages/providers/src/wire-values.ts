// Readers for answer fields whose type independent implementations of a protocol vary on (the
// service must work against independent fakes of each protocol written from the public documentation).
// A number we only report (seed, usage, timestamps) may come as a JSON string (proto3 JSON writes
// 64-bit integers that way; hand-written fakes often do): it is read, and a value of any other type
// is dropped rather than failing the whole answer, which would look like an outage and be retried
// until the task's deadline.
import { z } from 'zod';

const toNumber = (v: unknown): number | null => {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
};

/** A number, or a numeric string; anything else (absent included) reads as null. */
export const wireNumber = z.unknown().optional().transform(toNumber);

/** A status word compared case-insensitively: `SUCCEEDED` and `succeeded` are the same state. */
export const statusWord = (s: string): string => s.trim().toLowerCase();
