import type { z } from 'zod';
import { AppError } from '@mediagen/errors';

/** Validates an admin body with the same error shape as the public API. */
export function parseAdminBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const r = schema.safeParse(body ?? {});
  if (r.success) return r.data;
  const details = r.error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message }));
  throw new AppError('validation_error', `Invalid request: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`, details);
}
