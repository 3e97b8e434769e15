// What every command gets: the SDK client from the environment, output helpers, and a signal that
// aborts on Ctrl-C or when --timeout passes.
import { MediaGen } from '../client';
import { UsageError } from './exit-codes';

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Whether stderr is a terminal (progress bar) . */
  tty: boolean;
}

export interface Context {
  io: Io;
  client(): MediaGen;
  /** Aborts on Ctrl-C; with a timeout, also when it passes (reason: TimeoutError). */
  signal(timeoutSeconds?: number): AbortSignal;
}

export function createContext(io: Io, env: NodeJS.ProcessEnv, interrupt: AbortSignal): Context {
  return {
    io,
    client() {
      if (!env.MEDIAGEN_API_KEY) throw new UsageError('Set MEDIAGEN_API_KEY to your API key (and MEDIAGEN_BASE_URL if the service is not at http://localhost:3000)');
      return new MediaGen({ apiKey: env.MEDIAGEN_API_KEY, baseUrl: env.MEDIAGEN_BASE_URL });
    },
    signal(timeoutSeconds) {
      return timeoutSeconds ? AbortSignal.any([interrupt, AbortSignal.timeout(timeoutSeconds * 1000)]) : interrupt;
    },
  };
}

/** A whole number of cents, 0 or more (--max-cost), or a usage error naming the option. */
export function cents(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim())) throw new UsageError(`--${name} must be a whole number of cents (0 or more), got "${value}"`);
  return Number(value.trim());
}

/** A positive number option, or a usage error naming it. */
export function positive(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a positive number, got "${value}"`);
  return n;
}
