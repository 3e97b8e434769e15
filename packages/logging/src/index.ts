// The one way processes make their logger: JSON lines (pino) with secrets redacted. Keys never
// reach a log line: client API keys and the admin token travel in Authorization headers, upstream
// keys in channel configs and axios request configs, inline files as data: URIs in strings.
import pino, { DestinationStream, Logger } from 'pino';
import { scrubString, scrubValue } from './scrub';

export { scrubString, scrubValue } from './scrub';

/** pino redact paths (fast-redact syntax; `*` is one level). */
export const REDACT_PATHS = [
  'authorization',
  'headers.authorization',
  'headers.Authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.headers.authorization',
  '*.headers.Authorization',
  'apiKey',
  '*.apiKey',
  '*.*.apiKey',
  'key',
  '*.key',
  'upstreamKey',
  'adminToken',
  'token',
  '*.token',
  // axios errors carry the whole request: headers with the upstream key, and the body.
  'err.config',
  'err.request',
  'err.response',
  'config.headers',
];

export function createLogger(level: string, base: Record<string, unknown>, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { log: (obj) => scrubValue(obj) as Record<string, unknown> },
      hooks: {
        // The message string (and printf arguments) bypass formatters.log.
        logMethod(args, method) {
          for (let i = 0; i < args.length; i++) if (typeof args[i] === 'string') args[i] = scrubString(args[i] as string);
          return method.apply(this, args as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}
