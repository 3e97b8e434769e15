// Adapter for MiniMax video v2 (providers.md §5), the upstream of our video-a-h3:
//   POST   {base}/v2/video_generation               -> {task_id}
//   GET    {base}/v2/query/video_generation/{id}    -> {task:{status, content.url, usage.output_seconds, error}}
//   GET    {base}/v1/files/retrieve?file_id=        -> {file:{download_url}}  (results given as a file id)
//   DELETE {base}/v2/video_generation/{id}          best-effort cancel (unverified; setting `cancel`)
// Auth: `Authorization: Bearer <key>`. Callbacks need a challenge echo and carry no signature, so
// this adapter does not ask for them (polling). No idempotency key and no client reference exist.
import { isAxiosError } from 'axios';
import type { AdapterCapabilities, ChannelAdapter, RenderRequest, RenderStatus, SubmitResult } from '../channel-adapter';
import { createUpstreamHttp } from '../upstream-http';
import { UpstreamError, unknownAnswer } from '../upstream-error';
import type { MinimaxChannel } from './minimax-config';
import { classifyMinimaxError, classifyMinimaxSignal, type MinimaxAction } from './minimax-errors';
import { minimaxBody, minimaxModel } from './minimax-request';
import { minimaxCoverage, minimaxMappingError } from './minimax-coverage';
import { probeMinimaxModel } from './minimax-probe';
import { baseRespSchema, minimaxCreateSchema, minimaxFileSchema, minimaxQuerySchema } from './minimax-schemas';
import { minimaxResult, minimaxStatus, minimaxUsage } from './minimax-status';
import type { z } from 'zod';

/** HTTP 200 whose `base_resp.status_code` is not 0 is an error all the same (older endpoints). */
function checkBaseResp(base: z.infer<typeof baseRespSchema> | null | undefined, action: MinimaxAction, reportsViolations: boolean): void {
  if (base?.status_code && base.status_code !== 0)
    throw classifyMinimaxSignal({ code: base.status_code, message: base.status_msg ?? undefined }, { reportsViolations, action });
}

export function createMinimaxAdapter(channel: MinimaxChannel): ChannelAdapter {
  const { client, close } = createUpstreamHttp(channel, { headers: { Authorization: `Bearer ${channel.apiKey}` } });
  const capabilities: AdapterCapabilities = { idempotentSubmit: false, cancel: channel.cancel, callbacks: 'none', synchronous: false, findOrphan: false, pollUsesRender: false };
  const classifyError = (err: unknown, action: MinimaxAction) => classifyMinimaxError(err, action, channel.reportsViolations);
  const call = async <T>(action: MinimaxAction, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw classifyError(err, action);
    }
  };
  const unreadable = (what: string) => unknownAnswer(`${what}: unexpected answer from the upstream`);

  const adapter: ChannelAdapter = {
    channel,
    capabilities,
    unsupported: (model) => minimaxMappingError(model),
    coverage: (model) => minimaxCoverage(model, channel),
    // Effort tiers above 1x may render on another upstream model (effortModels).
    upstreamModel: (spec) => (spec.type === 'video' ? minimaxModel(spec, channel) : undefined),
    probeModel: (model, signal) => probeMinimaxModel(client, model, signal),
    classifyError,

    submit: (req: RenderRequest) =>
      call('submit', async (): Promise<SubmitResult> => {
        if (req.spec.type !== 'video') throw new UpstreamError('failed', `channel ${channel.id}: MiniMax v2 renders videos only`);
        const model = minimaxModel(req.spec, channel);
        if (!model) throw new UpstreamError('failed', `channel ${channel.id} does not serve ${req.spec.model}`);
        const res = await client.post('/v2/video_generation', minimaxBody(req, req.spec, model, channel), { timeout: channel.timeouts.submitMs, signal: req.signal });
        const created = minimaxCreateSchema.safeParse(res.data);
        if (created.success) checkBaseResp(created.data.base_resp, 'submit', channel.reportsViolations);
        // 200 without an id: we cannot know whether a render started, and asking again could start a second.
        if (!created.success || !created.data.task_id) throw new UpstreamError('failed', 'submit: the upstream answered without a task_id');
        return { upstreamId: created.data.task_id };
      }),

    poll: (upstreamId: string) =>
      call('status', async (): Promise<RenderStatus> => {
        const res = await client.get(`/v2/query/video_generation/${encodeURIComponent(upstreamId)}`, { timeout: channel.timeouts.pollMs });
        const parsed = minimaxQuerySchema.safeParse(res.data);
        if (!parsed.success) {
          const base = baseRespSchema.safeParse((res.data as { base_resp?: unknown } | null)?.base_resp);
          if (base.success) checkBaseResp(base.data, 'status', channel.reportsViolations);
          throw unreadable('status');
        }
        checkBaseResp(parsed.data.base_resp, 'status', channel.reportsViolations);
        const task = parsed.data.task;
        const status = minimaxStatus(task, channel.reportsViolations);
        if (status !== 'succeeded') return status;
        const usage = minimaxUsage(task, channel.prices);
        const result = minimaxResult(task);
        let url: string | undefined;
        if (result && 'url' in result) url = result.url;
        else if (result) {
          const file = await client.get('/v1/files/retrieve', { params: { file_id: result.fileId }, timeout: channel.timeouts.pollMs });
          const f = minimaxFileSchema.safeParse(file.data);
          if (!f.success) throw unreadable('status');
          checkBaseResp(f.data.base_resp, 'status', channel.reportsViolations);
          url = f.data.file?.download_url ?? undefined;
        }
        // Without a URL there are no outputs, which the worker settles as no_result (unusable).
        // The link is time-limited: the worker downloads it at once (a new query would refresh it).
        const outputs = url ? [{ kind: 'url' as const, url, contentType: 'video/mp4' }] : [];
        return usage ? { state: 'succeeded', outputs, usage } : { state: 'succeeded', outputs };
      }),

    close,
  };
  if (channel.cancel)
    adapter.cancel = async (upstreamId: string) => {
      try {
        await client.delete(`/v2/video_generation/${encodeURIComponent(upstreamId)}`, { timeout: channel.timeouts.pollMs });
      } catch (err) {
        // A task MiniMax no longer knows leaves nothing to cancel. Any other refusal (a finished task,
        // an upstream without the call) is reported: the render goes on, so the task must go on to
        // its own end rather than settle as cancelled and refunded while the render is billed.
        if (isAxiosError(err) && err.response?.status === 404) return;
        throw classifyError(err, 'cancel');
      }
    };
  return adapter;
}
