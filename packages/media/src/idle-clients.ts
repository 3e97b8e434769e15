// Idle HTTP clients of result downloads, kept a few seconds for the next download to the same
// place (pooled-request.ts). The key is the origin and the exact addresses the request's URL check
// approved: a client is reused only by a request whose own check approved the same addresses, so
// pinning holds across reuse. Bounded (a few clients per key, a few dozen keys, oldest key first
// out) and timed out idle; nothing here keeps the process alive.
import type { ResolvedAddress } from './url-policy';

/** How long a client waits for its next download: under common servers' keep-alive (Node's 5 s). */
export const IDLE_MS = 4_000;
const PER_KEY = 4;
const MAX_KEYS = 64;

interface Closable {
  destroy(err?: Error | null): Promise<void>;
}

export const idleKey = (origin: string, addresses: readonly ResolvedAddress[]): string =>
  `${origin} ${addresses
    .map((a) => `${a.family}/${a.address}`)
    .sort()
    .join(',')}`;

export class IdleClients<C extends Closable> {
  private readonly byKey = new Map<string, { client: C; timer: NodeJS.Timeout }[]>();

  constructor(private readonly idleMs = IDLE_MS) {}

  /** An idle client for `key` (the most recently used), now the caller's alone; null when none. */
  take(key: string): C | null {
    const list = this.byKey.get(key);
    const entry = list?.pop();
    if (list && list.length === 0) this.byKey.delete(key);
    if (!entry) return null;
    clearTimeout(entry.timer);
    return entry.client;
  }

  /** Keeps `client` for the next download of `key`, or closes it when there is no room. */
  put(key: string, client: C): void {
    let list = this.byKey.get(key);
    if (list) this.byKey.delete(key); // re-inserted below: the most recently used key goes last
    else list = [];
    if (list.length >= PER_KEY) {
      this.byKey.set(key, list);
      void client.destroy().catch(() => undefined);
      return;
    }
    const entry = { client, timer: setTimeout(() => this.expire(key, entry), this.idleMs) };
    entry.timer.unref();
    list.push(entry);
    this.byKey.set(key, list);
    while (this.byKey.size > MAX_KEYS) {
      const oldest = this.byKey.keys().next().value as string;
      for (const e of this.byKey.get(oldest) ?? []) this.drop(e);
      this.byKey.delete(oldest);
    }
  }

  /** Idle clients now (tests, metrics). */
  get size(): number {
    let n = 0;
    for (const list of this.byKey.values()) n += list.length;
    return n;
  }

  /** Closes every idle client (shutdown, tests). */
  closeAll(): void {
    for (const list of this.byKey.values()) for (const e of list) this.drop(e);
    this.byKey.clear();
  }

  private expire(key: string, entry: { client: C; timer: NodeJS.Timeout }): void {
    const list = this.byKey.get(key);
    const i = list?.indexOf(entry) ?? -1;
    if (i < 0) return;
    list!.splice(i, 1);
    if (list!.length === 0) this.byKey.delete(key);
    this.drop(entry);
  }

  private drop(e: { client: C; timer: NodeJS.Timeout }): void {
    clearTimeout(e.timer);
    void e.client.destroy().catch(() => undefined);
  }
}
