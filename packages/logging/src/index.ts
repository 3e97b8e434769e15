// The one way processes make their logger: JSON lines (pino) with secrets removed (redact.ts):
// keys and tokens by field name, the request configs of upstream HTTP errors, inline files as
// data: URIs in any string, the message included.
import pino, { DestinationStream, Logger } from 'pino';
import { redactString, redactValue } from './redact';

export { CENSOR, SECRET_FIELDS, redactString, redactValue } from './redact';
export { redactUrl } from './redact-url';

export function createLogger(level: string, base: Record<string, unknown>, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base,
      formatters: { log: (obj) => redactValue(obj) as Record<string, unknown> },
      hooks: {
        // The message string (and printf arguments) bypass formatters.log.
        logMethod(args, method) {
          for (let i = 0; i < args.length; i++) if (typeof args[i] === 'string') args[i] = redactString(args[i] as string);
          return method.apply(this, args as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}
