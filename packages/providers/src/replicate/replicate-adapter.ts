// Adapter for the `replicate` protocol (providers.md 7):
//   POST {base}/models/{owner}/{name}/predictions   (or POST {base}/predictions with a version)
//   GET  {base}/predictions/{id}        POST {base}/predictions/{id}/cancel
//   GET  {base}/webhooks/default/secret (the webhook signing secret, when not configured)
//   GET  {base}/predictions              (orphan search: a prediction whose create answer was lost)
// Auth `Authorization: Bearer ...`. Outputs are deleted an hour after the prediction (providers.md 7):
// the worker downloads as soon as a poll or a callback reports success.
import type { ChannelAdapter, RenderRequest, RenderStatus, SubmitResult } from '../channel-adapter';
import { upstreamModelFor } from '../channel-config';
import { UpstreamError, unknownAnswer } from '../upstream-error';
import { createUpstreamHttp } from '../upstream-http';
import type { ReplicateChannel } from './replicate-config';
import { classifyReplicateError } from './replicate-errors';
import { parseReplicateModel, replicateInput } from './replicate-request';
import { replicateCoverage, replicateMappingError } from './replicate-coverage';
import { probeReplicateModel } from './replicate-probe';
import { ORPHAN_MAX_PAGES, orphanSince } from '../orphan-search';
import { listedPredictionSchema, OrphanMatch, predictionOrphanMatch, predictionPageSchema, predictionsBefore } from './replicate-orphan';
import { predictionSchema, webhookSecretSchema } from './replicate-schemas';
import { predictionStatus } from './replicate-status';
import { hasReplicateSignature, ReplicateSecret, verifyReplicateWebhook } from './replicate-webhook';

const PREDICTION_ID = /^[\w-]+$/;

export function createReplicateAdapter(channel: ReplicateChannel): ChannelAdapter {
  const base = channel.baseUrl.replace(/\/+$/, '');
  const { client, close } = createUpstreamHttp(channel, { headers: { Authorization: `Bearer ${channel.apiKey}`, 'Content-Type': 'application/json' } });
  const request = <T>(config: Parameters<typeof client.request>[0], ms: number) => client.request<T>({ ...config, timeout: ms });
  const classify = (err: unknown, action: 'submit' | 'status' | 'download' | 'cancel') => classifyReplicateError(err, action, channel.reportsViolations);
  const target = (spec: RenderRequest['spec']) => upstreamModelFor(channel, spec.model, spec.type === 'video' ? spec.variant : null);
  const secret = new ReplicateSecret(channel.webhookSecret, async () => {
    const res = await request<unknown>({ method: 'GET', url: '/webhooks/default/secret' }, channel.timeouts.pollMs);
    return webhookSecretSchema.parse(res.data).key;
  });

  /** The channel's price for the model a request renders on (keyed by its `models` value). */
  const priceOf = (spec: RenderRequest['spec']) => {
    const value = target(spec);
    return value ? channel.prices?.[value] ?? channel.prices?.[value.split(':')[0]] : undefined;
  };
  /** The price for a polled prediction, from the model (and version) it names. */
  const modelPrice = (model: string | null | undefined, version: unknown) =>
    Object.entries(channel.prices ?? {}).find(([k]) => (model && k === model) || (typeof version === 'string' && k.endsWith(`:${version}`)))?.[1];

  /** The `next` page URL when it stays under our base (the key is never sent elsewhere). */
  const sameApi = (next: string | null | undefined): string | null => {
    if (!next) return null;
    try {
      const u = new URL(next, `${base}/`);
      return u.href.startsWith(`${base}/`) ? u.href : null;
    } catch {
      return null;
    }
  };

  // A held submit (Prefer: wait) answers up to `wait` seconds later than a plain one.
  const submitDeadlineMs = (req: RenderRequest) => channel.timeouts.submitMs + (req.spec.type === 'image' ? (channel.preferWaitSeconds ?? 0) : 0) * 1000;

  return {
    channel,
    submitDeadlineMs,
    // callbacks: false: the channel only polls (no webhook is passed, none is accepted).
    capabilities: { idempotentSubmit: false, cancel: true, callbacks: channel.callbacks === false ? 'none' : 'signed', synchronous: !!channel.preferWaitSeconds, findOrphan: channel.orphanSearch !== false, pollUsesRender: false },
    classifyError: classify,
    unsupported: (model, variant) => replicateMappingError(model, upstreamModelFor(channel, model, variant)),
    coverage: (model, variant) => replicateCoverage(model, upstreamModelFor(channel, model, variant), variant),
    probeModel: (value, signal) => probeReplicateModel(client, value, signal),

    async submit(req: RenderRequest): Promise<SubmitResult> {
      const value = target(req.spec);
      const t = parseReplicateModel(value);
      if (!t) throw new UpstreamError('failed', `channel ${channel.id} does not serve ${req.spec.model}`);
      const body: Record<string, unknown> = { input: replicateInput(req.spec, req.references ?? [], t, req.outputSeconds) };
      // `webhook` is the task's callback URL: also what an orphan search matches a listed prediction by.
      if (t.version) body.version = t.version;
      if (req.callbackUrl) Object.assign(body, { webhook: req.callbackUrl, webhook_events_filter: ['completed'] });
      const headers: Record<string, string> = {};
      const wait = req.spec.type === 'image' ? channel.preferWaitSeconds : undefined;
      if (wait) headers.Prefer = `wait=${wait}`;
      if (channel.cancelAfterSeconds) headers['Cancel-After'] = `${channel.cancelAfterSeconds}s`;
      const url = t.version ? '/predictions' : `/models/${t.owner}/${t.name}/predictions`;
      try {
        const res = await request<unknown>({ method: 'POST', url, data: body, headers, signal: req.signal }, submitDeadlineMs(req));
        const p = predictionSchema.safeParse(res.data);
        if (!p.success) throw new UpstreamError('failed', 'submit: Replicate answered without a prediction id');
        const status = predictionStatus(p.data, channel.reportsViolations, priceOf(req.spec));
        return { upstreamId: p.data.id, ...(status.state !== 'running' ? { status } : {}) };
      } catch (err) {
        throw classify(err, 'submit');
      }
    },

    async poll(upstreamId: string): Promise<RenderStatus> {
      if (!PREDICTION_ID.test(upstreamId)) throw new UpstreamError('lost', `status: not a prediction id: ${upstreamId}`);
      try {
        const res = await request<unknown>({ method: 'GET', url: `/predictions/${upstreamId}` }, channel.timeouts.pollMs);
        const p = predictionSchema.safeParse(res.data);
        if (!p.success) throw unknownAnswer('status: unexpected answer from the upstream (unreadable prediction)');
        return predictionStatus(p.data, channel.reportsViolations, modelPrice(p.data.model, p.data.version));
      } catch (err) {
        throw classify(err, 'status');
      }
    },

    // A prediction the lost create made, found in the list (replicate-orphan.ts). Errors are
    // classified as the submit's: a list the upstream does not offer is `failed`, and the worker
    // then creates without a search; a transient one makes it search again later.
    async findOrphan(req: RenderRequest): Promise<string | null> {
      const t = parseReplicateModel(target(req.spec));
      if (channel.orphanSearch === false || !t) return null;
      const query = {
        model: `${t.owner}/${t.name}`, ...(t.version ? { version: t.version } : {}),
        input: replicateInput(req.spec, req.references ?? [], t, req.outputSeconds),
        ...(req.callbackUrl ? { webhook: req.callbackUrl } : {}),
        since: orphanSince(req.submitSentAt),
      };
      const byInput: string[] = [];
      let url: string | null = '/predictions';
      try {
        for (let page = 0; url && page < ORPHAN_MAX_PAGES; page++) {
          const res = await request<unknown>({ method: 'GET', url }, channel.timeouts.pollMs);
          const list = predictionPageSchema.safeParse(res.data);
          if (!list.success) throw new UpstreamError('failed', 'orphan search: the prediction list is not {results, next}');
          for (const item of list.data.results) {
            const p = listedPredictionSchema.safeParse(item);
            const match: OrphanMatch = p.success ? predictionOrphanMatch(p.data, query) : null;
            if (match === 'webhook') return p.data!.id;
            if (match === 'input') byInput.push(p.data!.id);
          }
          if (predictionsBefore(list.data.results, query.since)) break;
          url = sameApi(list.data.next);
        }
      } catch (err) {
        throw classify(err, 'submit');
      }
      // Matched by input only: another task with the same input may be the one listed.
      return byInput.length === 1 ? byInput[0] : null;
    },

    async cancel(upstreamId: string): Promise<void> {
      if (!PREDICTION_ID.test(upstreamId)) return;
      let res;
      try {
        res = await request<unknown>({ method: 'POST', url: `/predictions/${upstreamId}/cancel`, validateStatus: (s) => (s >= 200 && s < 300) || s === 404 || s === 409 }, channel.timeouts.pollMs);
      } catch (err) {
        throw classify(err, 'cancel');
      }
      // An unknown prediction leaves nothing to cancel. The answer is the prediction (providers.md 7):
      // one that already succeeded or failed was not stopped, and a 409 is a refusal too; the task
      // must then go on to its own end rather than settle as cancelled while the render is billed.
      if (res.status === 404) return;
      const finished = predictionSchema.safeParse(res.data);
      const status = finished.success ? finished.data.status : null;
      if (res.status === 409 || status === 'succeeded' || status === 'failed')
        throw new UpstreamError('failed', `cancel: HTTP ${res.status}: the prediction already ${status ?? 'finished'}`, undefined, res.status);
    },

    async verifyCallback(input) {
      // Nothing to verify: no reason to fetch (or wait for) the secret.
      if (!hasReplicateSignature(input.headers)) return null;
      let key: string;
      try {
        key = await secret.get();
      } catch (err) {
        // Without the secret nothing can be verified; the task still finishes by polling.
        throw classify(err, 'status');
      }
      return verifyReplicateWebhook(input, key);
    },

    close,
  };
}
