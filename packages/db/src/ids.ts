import { randomUUID } from 'node:crypto';

/** Opaque string ids. Task ids are plain UUIDs; other rows carry a readable prefix. */
export const newId = (prefix?: string): string => (prefix ? `${prefix}_${randomUUID().replace(/-/g, '')}` : randomUUID());
