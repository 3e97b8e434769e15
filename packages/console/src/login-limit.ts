// Login attempts: at most LOGIN_ATTEMPTS failed tries per client address and per operator name in
// a window, counted in Redis so every gateway shares the count. A success does not reset the
// address count (an attacker with one valid account cannot use it to keep guessing others).
import type { Redis } from 'ioredis';

export const LOGIN_ATTEMPTS = 10;
export const LOGIN_WINDOW_S = 15 * 60;

export class LoginLimit {
  constructor(private readonly redis: Redis, private readonly prefix: string) {}

  private keys(ip: string, name: string): string[] {
    return [`${this.prefix}:console-login:ip:${ip}`, `${this.prefix}:console-login:name:${name.toLowerCase()}`];
  }

  /** Seconds until a try is allowed again, or 0 when one is allowed now. */
  async blockedFor(ip: string, name: string): Promise<number> {
    const keys = this.keys(ip, name);
    const counts = await this.redis.mget(...keys);
    let wait = 0;
    for (let i = 0; i < keys.length; i++) {
      if (Number(counts[i] ?? 0) >= LOGIN_ATTEMPTS) wait = Math.max(wait, await this.redis.ttl(keys[i]), 1);
    }
    return wait;
  }

  async failed(ip: string, name: string): Promise<void> {
    const m = this.redis.multi();
    for (const k of this.keys(ip, name)) m.incr(k).expire(k, LOGIN_WINDOW_S, 'NX');
    await m.exec();
  }
}
