// Exit codes of `mediagen`, by outcome (documented in packages/client/README.md). Scripts branch
// on these rather than on printed text.
import { ApiConnectionError, ApiError, AuthenticationError, InsufficientBalanceError } from '../errors';

export const EXIT = {
  /** Done: the query answered, or the task completed (and its file was saved). */
  ok: 0,
  /** The task ended `failed` (see errorCode; it was refunded). */
  taskFailed: 1,
  /** Bad command line or missing MEDIAGEN_API_KEY. */
  usage: 2,
  /** 401: the API key is missing, wrong or revoked. */
  auth: 3,
  /** 402: insufficient balance; nothing was charged. */
  insufficientBalance: 4,
  /** Another refusal (400, 404, 409, 422, or 429 after the SDK's retries). */
  refused: 5,
  /** No answer or a 5xx after the SDK's retries: try again later. */
  unavailable: 6,
  /** --timeout passed before the task finished (the task goes on; resume with `mediagen task <id> --wait`). */
  timeout: 7,
  /** Interrupted with Ctrl-C (the task goes on). */
  interrupted: 130,
} as const;

export function exitCodeFor(err: unknown): number {
  if (err instanceof AuthenticationError) return EXIT.auth;
  if (err instanceof InsufficientBalanceError) return EXIT.insufficientBalance;
  if (err instanceof ApiError) return err.status >= 500 ? EXIT.unavailable : EXIT.refused;
  if (err instanceof ApiConnectionError) return EXIT.unavailable;
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof Error && err.name === 'TimeoutError') return EXIT.timeout;
  if (err instanceof Error && err.name === 'AbortError') return EXIT.interrupted;
  return EXIT.unavailable;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
