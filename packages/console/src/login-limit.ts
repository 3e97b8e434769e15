// Login attempts: at most LOGIN_ATTEMPTS failed tries per client address and per operator name in
// a window, counted in Redis so every gateway shares the count. A success does not reset the
// address count (an attacker with one valid account cannot use it to keep guessing others).
import type { Cluster, Redis } from 'ioredis';

export const LOGIN_ATTEMPTS = 10;
export const LOGIN_WINDOW_S = 15 * 60;

export class LoginLimit {
  constructor(private readonly redis: Redis | Cluster, private readonly prefix: string) {}

  private keys(ip: string, name: string): string[] {
    return [`${this.prefix}:console-login:ip:${ip}`, `${this.prefix}:console-login:name:${name.toLowerCase()}`];
  }

  /** Seconds until a try is allowed again, or 0 when one is allowed now. */
  async blockedFor(ip: string, name: string): Promise<number> {
    const keys = this.keys(ip, name);
    // One GET per key, not MGET: on a Redis Cluster the two keys sit in different hash slots.
    const counts = await Promise.all(keys.map((k) => this.redis.get(k)));
    let wait = 0;
    for (let i = 0; i < keys.length; i++) {
      if (Number(counts[i] ?? 0) >= LOGIN_ATTEMPTS) wait = Math.max(wait, await this.redis.ttl(keys[i]), 1);
    }
    return wait;
  }

  async failed(ip: string, name: string): Promise<void> {
    // One MULTI per key (each stays in its own hash slot on a cluster); the two counts need not move together.
    await Promise.all(this.keys(ip, name).map((k) => this.redis.multi().incr(k).expire(k, LOGIN_WINDOW_S, 'NX').exec()));
  }
}
