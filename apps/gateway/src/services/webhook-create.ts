// A webhook endpoint created from the console: the same URL rules and the same store as
// POST /admin/accounts/{id}/webhooks, so an operator cannot create what the API would refuse.
import { parseCallbackUrl } from '@mediagen/catalog';
import { isAppError } from '@mediagen/errors';
import { createEndpoint } from '@mediagen/webhooks';
import type { GatewayDeps } from '../deps';

export async function createWebhookEndpoint(
  deps: GatewayDeps,
  accountId: string,
  rawUrl: string,
  events: string[],
): Promise<{ id: string; url: string; secret: string } | { refused: string }> {
  let url: string;
  try {
    url = parseCallbackUrl(rawUrl, { allowPrivateMediaUrls: deps.config.ALLOW_PRIVATE_MEDIA_URLS, allowLocalWebhooks: deps.config.ALLOW_LOCAL_WEBHOOKS }, 'url')!;
  } catch (err) {
    if (isAppError(err)) return { refused: err.message };
    throw err;
  }
  const e = await createEndpoint(deps.db, accountId, url, events);
  return { id: e.id, url: e.url ?? url, secret: e.secret };
}
