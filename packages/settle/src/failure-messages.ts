// The human text of failed tasks. Clients must branch on errorCode and
// retryable, so the wording may change; it says what happened and whether trying again can help.
import type { FailureCode } from '@mediagen/db';

/** Failures whose cause the client should hear about more precisely than the code says. */
export type FailureReason = 'inputs_not_stored';

export function failureMessage(code: FailureCode, opts: { channelsTried?: number; timeoutMs?: number; reason?: FailureReason } = {}): string {
  if (opts.reason === 'inputs_not_stored')
    return 'The reference files could not be stored. You were refunded; please try again.';
  switch (code) {
    case 'content_violation':
      return 'The provider flagged the prompt or the reference media as violating its content policy. The same input will be refused again.';
    case 'generation_failed':
      return opts.channelsTried && opts.channelsTried > 1
        ? `The provider could not generate this result on any of the ${opts.channelsTried} channels tried. You were refunded; please try again.`
        : 'The provider could not generate this result. You were refunded; please try again.';
    case 'no_result':
      return 'The provider reported success but no usable result file could be retrieved and saved. You were refunded; please try again.';
    case 'cancelled':
      return 'The task was cancelled at your request. You were refunded.';
    case 'timeout': {
      const h = (opts.timeoutMs ?? 21_600_000) / 3_600_000;
      const limit = Number.isInteger(h) ? `${h} hour${h === 1 ? '' : 's'}` : `${Math.round((opts.timeoutMs ?? 0) / 1000)} seconds`;
      return `No result within ${limit}. You were refunded; please try again.`;
    }
  }
}
