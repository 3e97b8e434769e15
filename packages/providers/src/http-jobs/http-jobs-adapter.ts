// Adapter for the `http-jobs` protocol (the one the provider simulator speaks):
//   POST {base}/v1/jobs            -> {id, status}          (Idempotency-Key honoured)
//   GET  {base}/v1/jobs/{id}       -> {id, status, progress, outputs: [{url, content_type}], error: {code, message}}
//   GET  <output url>              -> the file (downloaded by download.ts, not here)
import { upstreamModelFor } from '../channel-config';
import type { ChannelAdapter, RenderRequest, RenderStatus, ResultRef } from '../channel-adapter';
import { classifyUpstreamError } from '../classify-error';
import { renderRequestBody } from '../render-request';
import { createUpstreamHttp } from '../upstream-http';
import { UpstreamError } from '../upstream-error';
import type { HttpJobsChannel } from './http-jobs-config';

interface JobBody {
  id?: unknown;
  status?: unknown;
  progress?: unknown;
  outputs?: unknown;
  error?: { code?: unknown; message?: unknown } | null;
}

export function createHttpJobsAdapter(channel: HttpJobsChannel): ChannelAdapter {
  const { client, close } = createUpstreamHttp(channel, { headers: { Authorization: `Bearer ${channel.apiKey}` } });
  const classify = (err: unknown, action: string) => classifyUpstreamError(err, { reportsViolations: channel.reportsViolations, action });

  const call = async <T>(action: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw classify(err, action);
    }
  };

  return {
    channel,
    // Honest: the simulator really deduplicates by Idempotency-Key (render-store.ts), so a resumed
    // submit may simply be sent again. It has no cancel, no callbacks, no synchronous answers.
    capabilities: { idempotentSubmit: true, cancel: false, callbacks: 'none', synchronous: false, findOrphan: false, pollUsesRender: false },
    classifyError: classify,

    submit: (req: RenderRequest) =>
      call('submit', async () => {
        const model = upstreamModelFor(channel, req.spec.model, req.spec.type === 'video' ? req.spec.variant : null);
        if (!model) throw new UpstreamError('failed', `channel ${channel.id} does not serve ${req.spec.model}`);
        const res = await client.post<JobBody>('/v1/jobs', renderRequestBody(req, model), {
          // The attempt id names the render: a submit repeated after a crash gets the same one.
          headers: { 'Idempotency-Key': req.attemptId },
          timeout: channel.timeouts.submitMs,
          signal: req.signal,
        });
        if (typeof res.data?.id !== 'string' || !res.data.id) throw new UpstreamError('failed', 'submit: the provider answered without a render id');
        return { upstreamId: res.data.id };
      }),

    poll: (upstreamId: string) =>
      call('status', async (): Promise<RenderStatus> => {
        const res = await client.get<JobBody>(`/v1/jobs/${encodeURIComponent(upstreamId)}`, {
          timeout: channel.timeouts.pollMs,
          // 404: the simulator forgot the render (restarted, swept): lost, not failed.
          validateStatus: (s) => (s >= 200 && s < 300) || s === 404,
        });
        if (res.status === 404) throw new UpstreamError('lost', `status: the provider no longer knows render ${upstreamId}`, undefined, 404);
        return toRenderStatus(res.data, channel);
      }),

    close,
  };
}

function toRenderStatus(body: JobBody, channel: HttpJobsChannel): RenderStatus {
  switch (body?.status) {
    case 'queued':
    case 'running': {
      const p = Number(body.progress);
      return { state: 'running', progress: Number.isFinite(p) ? p : 0 };
    }
    case 'succeeded': {
      const outputs = Array.isArray(body.outputs) ? body.outputs : [];
      const refs: ResultRef[] = outputs
        .filter((o): o is { url: string; content_type?: unknown } => !!o && typeof (o as { url?: unknown }).url === 'string')
        .map((o) => ({ kind: 'url', url: o.url, contentType: typeof o.content_type === 'string' ? o.content_type : undefined }));
      return { state: 'succeeded', outputs: refs };
    }
    case 'failed': {
      const code = typeof body.error?.code === 'string' ? body.error.code : '';
      const message = typeof body.error?.message === 'string' ? body.error.message : 'render failed';
      if (code === 'content_policy' && channel.reportsViolations)
        return { state: 'failed', error: new UpstreamError('violation', `the provider flagged the content: ${message}`) };
      return { state: 'failed', error: new UpstreamError('failed', `render failed: ${message}`) };
    }
    default:
      // An answer we cannot read is treated like a dropped connection: ask again later.
      throw new UpstreamError('transient', `status: unexpected answer ${JSON.stringify(body?.status ?? null)}`);
  }
}
