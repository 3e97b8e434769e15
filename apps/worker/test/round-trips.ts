// Counts what a piece of worker code asks of Redis and Postgres: the socket writes and commands of
// the worker's plain Redis connection, and every SQL statement sent on any pg connection (the pool
// behind Prisma and sql.ts). For tests that hold a step to a number of round trips.
import { Client } from 'pg';
import type { Redis } from 'ioredis';

export interface RoundTrips {
  /** Socket writes on the Redis connection: one per command, or one per pipeline. */
  redisWrites: number;
  /** Commands sent, in order (a pipeline's commands each). */
  redisCommands: string[];
  /** SQL statements, in order, as the text's first words. */
  sql: string[];
}

const firstWords = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 60);

/** Runs `fn` and counts its Redis writes and commands on `redis` and every SQL statement meanwhile. */
export async function countRoundTrips<T>(redis: Redis, fn: () => Promise<T>): Promise<{ result: T; trips: RoundTrips }> {
  const trips: RoundTrips = { redisWrites: 0, redisCommands: [], sql: [] };
  const stream = (redis as unknown as { stream: { write: (...a: unknown[]) => boolean } }).stream;
  const write = stream.write;
  stream.write = function (this: unknown, ...a: unknown[]) {
    trips.redisWrites += 1;
    return write.apply(this, a);
  };
  const send = redis.sendCommand;
  redis.sendCommand = function (this: Redis, ...a: Parameters<Redis['sendCommand']>) {
    trips.redisCommands.push(a[0].name);
    return send.apply(this, a);
  } as Redis['sendCommand'];
  const query = Client.prototype.query;
  Client.prototype.query = function (this: Client, ...a: unknown[]) {
    const q = a[0] as string | { text?: string };
    trips.sql.push(firstWords(typeof q === 'string' ? q : (q?.text ?? '')));
    return (query as (...x: unknown[]) => unknown).apply(this, a);
  } as typeof query;
  try {
    return { result: await fn(), trips };
  } finally {
    stream.write = write;
    redis.sendCommand = send;
    Client.prototype.query = query;
  }
}
