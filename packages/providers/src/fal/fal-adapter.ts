// Adapter for the `fal` protocol (fal.ai queue, providers.md 6):
//   POST {base}/{owner}/{app}[/sub-path]?fal_webhook=...   -> {request_id, status_url, response_url, cancel_url}
//   GET  {base}/{owner}/{app}/requests/{id}/status         -> IN_QUEUE | IN_PROGRESS | COMPLETED
//   GET  {base}/{owner}/{app}/requests/{id}                -> the app's output, or its error body
//   PUT  {base}/{owner}/{app}/requests/{id}/cancel
// Auth `Authorization: Key ...`. Our upstream id is `{owner}/{app}/requests/{id}`: the callback names
// only the request id, so the app travels in the callback URL's query (`fal_app`) to rebuild it.
import type { ChannelAdapter, RenderContext, RenderRequest, RenderStatus, SubmitResult } from '../channel-adapter';
import { upstreamModelFor } from '../channel-config';
import { UpstreamError, unknownAnswer } from '../upstream-error';
import { createUpstreamHttp } from '../upstream-http';
import { DEFAULT_FAL_JWKS_URL, DEFAULT_FAL_PLATFORM_URL, type FalChannel } from './fal-config';
import { classifyFalError } from './fal-errors';
import { falAppRoot, falRoute } from './fal-request';
import { falCoverage, falMappingError } from './fal-coverage';
import { probeFalApp } from './fal-probe';
import { falStatusSchema, falSubmitSchema, falWebhookBodySchema } from './fal-schemas';
import { falQueueState, falResultStatus } from './fal-status';
import { FalKeySet, FetchJson, verifyFalWebhook } from './fal-webhook';

const UPSTREAM_ID = /^[\w.-]+\/[\w.-]+\/requests\/[\w.-]+$/;
const APP_ROOT = /^[\w.-]+\/[\w.-]+$/;

export interface FalAdapterOptions {
  /** Tests and the simulator's dev config swap how the JWKS is fetched. */
  fetchJwks?: FetchJson;
}

export function createFalAdapter(channel: FalChannel, opts: FalAdapterOptions = {}): ChannelAdapter {
  const base = channel.baseUrl.replace(/\/+$/, '');
  const basePath = new URL(base).pathname.replace(/\/+$/, '');
  const { client, close } = createUpstreamHttp(channel, { headers: { Authorization: `Key ${channel.apiKey}`, 'Content-Type': 'application/json' } });
  const request = <T>(config: Parameters<typeof client.request>[0], ms: number) => client.request<T>({ ...config, timeout: ms });
  const classify = (err: unknown, action: 'submit' | 'status' | 'download' | 'cancel') => classifyFalError(err, action, channel.reportsViolations);
  const keySet = new FalKeySet(channel.webhookJwksUrl || DEFAULT_FAL_JWKS_URL, opts.fetchJwks);
  const upstreamApp = (spec: RenderRequest['spec']) => upstreamModelFor(channel, spec.model, spec.type === 'video' ? spec.variant : null);

  /**
   * The price of the app a polled request runs on: by the rendered model's `models` value when the
   * poll knows the render (the app path with its sub-path), else the only entry under the id's app.
   */
  const priceOf = (upstreamId: string, render?: RenderContext) => {
    const app = render && upstreamApp(render.spec);
    const video = render?.spec.type === 'video';
    const under = Object.entries(channel.prices ?? {}).filter(([k]) => upstreamId.startsWith(`${falAppRoot(k)}/`));
    const entry = app ? channel.prices?.[app] : under.length === 1 ? under[0][1] : undefined;
    return entry ? { entry, outputSeconds: video ? render?.outputSeconds ?? null : null } : undefined;
  };

  /** The id under our base from fal's response_url when it has the documented shape, else built. */
  const upstreamIdOf = (root: string, requestId: string, responseUrl: string | null | undefined): string => {
    try {
      const u = new URL(responseUrl ?? '');
      const rel = u.pathname.startsWith(`${basePath}/`) ? u.pathname.slice(basePath.length + 1) : '';
      if (u.origin === new URL(base).origin && UPSTREAM_ID.test(rel) && rel.endsWith(`/requests/${requestId}`)) return rel;
    } catch {
      /* no or odd response_url: build it */
    }
    return `${root}/requests/${requestId}`;
  };

  return {
    channel,
    capabilities: { idempotentSubmit: false, cancel: true, callbacks: 'signed', synchronous: false, findOrphan: false, pollUsesRender: true },
    classifyError: classify,
    unsupported: (model, variant) => falMappingError(model, upstreamModelFor(channel, model, variant)),
    coverage: (model, variant) => falCoverage(model, upstreamModelFor(channel, model, variant)),
    probeModel: (app, signal) => probeFalApp(client, channel.platformUrl ?? DEFAULT_FAL_PLATFORM_URL, app, signal),

    async submit(req: RenderRequest): Promise<SubmitResult> {
      const app = upstreamApp(req.spec);
      if (!app) throw new UpstreamError('failed', `channel ${channel.id} does not serve ${req.spec.model}`);
      const route = falRoute(req.spec, req.references ?? [], app, req.outputSeconds);
      const root = falAppRoot(route.path);
      const params: Record<string, string> = {};
      if (req.callbackUrl) {
        const hook = new URL(req.callbackUrl);
        hook.searchParams.set('fal_app', root);
        params.fal_webhook = hook.toString();
      }
      try {
        const res = await request<unknown>({ method: 'POST', url: `/${route.path}`, params, data: route.input, signal: req.signal }, channel.timeouts.submitMs);
        const parsed = falSubmitSchema.safeParse(res.data);
        if (!parsed.success) throw new UpstreamError('failed', 'submit: fal answered without a request id');
        return { upstreamId: upstreamIdOf(root, parsed.data.request_id, parsed.data.response_url) };
      } catch (err) {
        throw classify(err, 'submit');
      }
    },

    async poll(upstreamId: string, render?: RenderContext): Promise<RenderStatus> {
      if (!UPSTREAM_ID.test(upstreamId)) throw new UpstreamError('lost', `status: not a fal request path: ${upstreamId}`);
      try {
        const res = await request<unknown>({ method: 'GET', url: `/${upstreamId}/status` }, channel.timeouts.pollMs);
        const parsed = falStatusSchema.safeParse(res.data);
        if (!parsed.success) throw unknownAnswer('status: unexpected answer from the upstream (unreadable fal status)');
        const state = falQueueState(parsed.data);
        if (state !== 'completed') return state;
        const result = await request<unknown>({ method: 'GET', url: `/${upstreamId}`, validateStatus: () => true }, channel.timeouts.pollMs);
        return falResultStatus(result.status, result.data, result.headers as Record<string, unknown>, channel.reportsViolations, parsed.data.metrics?.inference_time, priceOf(upstreamId, render));
      } catch (err) {
        throw classify(err, 'status');
      }
    },

    async cancel(upstreamId: string): Promise<void> {
      if (!UPSTREAM_ID.test(upstreamId)) return;
      let res;
      try {
        res = await request({ method: 'PUT', url: `/${upstreamId}/cancel`, validateStatus: (s) => s === 202 || s === 200 || s === 400 || s === 404 }, channel.timeouts.pollMs);
      } catch (err) {
        throw classify(err, 'cancel');
      }
      // 202 CANCELLATION_REQUESTED; 404 NOT_FOUND leaves nothing to cancel. 400 ALREADY_COMPLETED
      // (providers.md 6) is a refusal: the render is done and billed, so the task must go on to
      // collect it (a client's cancel then ends not_cancellable) rather than settle as cancelled.
      if (res.status === 400) throw new UpstreamError('failed', `cancel: fal answered HTTP 400 ${JSON.stringify(res.data).slice(0, 200)}: the request already completed`, undefined, 400);
    },

    async verifyCallback(input) {
      const requestId = await verifyFalWebhook(input, keySet);
      if (!requestId) return null;
      const body = falWebhookBodySchema.safeParse(safeJson(input.rawBody));
      const app = input.query?.fal_app;
      if (!body.success || body.data.request_id !== requestId || !app || !APP_ROOT.test(app)) return null;
      return { upstreamId: `${app}/requests/${requestId}` };
    },

    close,
  };
}

const safeJson = (raw: Buffer): unknown => {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return null;
  }
};
