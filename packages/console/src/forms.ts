// Form bodies parsed with zod; a refusal becomes a 422 page naming each field and what it needs.
import type { z } from 'zod';
import { ConsoleError } from './console-error';

export function formOf<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const r = schema.safeParse(body ?? {});
  if (r.success) return r.data;
  const parts = r.error.issues.map((i) => `${i.path.join('.') || 'form'}: ${i.message}`);
  throw new ConsoleError(422, `Please correct the form. ${parts.join('; ')}`);
}
