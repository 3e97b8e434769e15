// "Last used" of API keys, kept cheaply: authentication only adds the key id to an in-memory set
// (no I/O on the request path); once a minute the gateway writes the set in one UPDATE, which
// itself skips keys already marked within the minute (touchApiKeys). A key's last-used time is
// therefore accurate to about a minute, and a gateway that dies loses at most its last minute.
import { touchApiKeys } from '@mediagen/db';
import type { GatewayCore } from '../core';

export const KEY_USAGE_FLUSH_MS = 60_000;

export interface KeyUsage {
  seen(apiKeyId: string): void;
  /** Writes what was seen since the last flush (tests call it; the timer calls it every minute). */
  flush(): Promise<void>;
  /** Stops the timer (closeDeps). */
  stop(): void;
}

/** The key usage of one gateway (built once per deps, in createDeps). */
export function createKeyUsage(deps: Pick<GatewayCore, 'db' | 'log'>): KeyUsage {
  let pending = new Set<string>();
  const flush = async () => {
    if (pending.size === 0) return;
    const ids = [...pending];
    pending = new Set();
    await touchApiKeys(deps.db, ids).catch((err: Error) => deps.log.warn({ err: err.message, keys: ids.length }, 'api keys: last-used not written'));
  };
  const timer = setInterval(() => void flush(), KEY_USAGE_FLUSH_MS).unref();
  return {
    seen: (id) => {
      if (pending.size < 100_000) pending.add(id);
    },
    flush,
    stop: () => clearInterval(timer),
  };
}
