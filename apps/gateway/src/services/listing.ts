// Query parameters of the listings (GET /api/tasks, admin tasks, ledger, deliveries): validated
// with the same error shape as bodies, unknown parameters refused (a typo would silently list all).
import { z } from 'zod';
import { AppError } from '@mediagen/errors';
import { TASK_STATUSES } from '@mediagen/catalog';

export const limitParam = (def: number, max: number) =>
  z.coerce.number().int().min(1).max(max).default(def).meta({ description: `Page size, 1-${max}; default ${def}.` });
export const cursorParam = z.string().min(1).max(500).optional().meta({ description: 'nextCursor of the previous page; omit for the first page.' });

export const taskListQuerySchema = z.strictObject({
  status: z.enum(TASK_STATUSES).optional(),
  type: z.enum(['video', 'image']).optional(),
  model: z.string().min(1).max(100).optional(),
  limit: limitParam(20, 100),
  cursor: cursorParam,
});

export function parseQuery<T extends z.ZodType>(schema: T, query: unknown): z.infer<T> {
  const r = schema.safeParse(query ?? {});
  if (r.success) return r.data;
  const details = r.error.issues.map((i) => ({
    path: i.path.join('.') || (i.code === 'unrecognized_keys' ? (i as { keys?: string[] }).keys?.join(', ') ?? '(query)' : '(query)'),
    message: i.message,
  }));
  throw new AppError('validation_error', `Invalid query: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`, details);
}
