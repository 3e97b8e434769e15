// POST /api/{video|image}/quote (extension, docs/api.md): the generate body validated, its
// references fetched and measured, and priced exactly as generate would, without an idempotency
// claim, a task, a charge or a job. max_cost_cents is applied too, so a quote answers what the
// generate call would (including its 422 cost_above_limit).
import { quoteBody, QuoteResponse } from '@mediagen/catalog';
import type { GatewayDeps } from '../deps';
import { checkCostCeiling, Endpoint, inspectAndPrice, parseSubmit } from './submit.service';
import type { InlineStager } from '../middleware/inline-staging';

export interface QuoteInput {
  accountId: string;
  endpoint: Endpoint;
  body: unknown;
  /** Aborted when the client goes away: reference fetches stop. */
  signal?: AbortSignal;
  /** Inline files the body wrote to storage as it arrived; the route deletes them afterwards. */
  staged?: InlineStager;
}

export async function quoteTask(deps: GatewayDeps, input: QuoteInput): Promise<QuoteResponse> {
  const { spec, maxCostCents } = parseSubmit(deps.config, input.endpoint, input.body, deps.sold, input.staged);
  const { cost } = await inspectAndPrice(deps, input.accountId, spec, input.signal, input.staged);
  checkCostCeiling(cost, maxCostCents);
  return quoteBody(spec, cost);
}
