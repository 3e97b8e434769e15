// Adapter for the `http-jobs` protocol (the one the provider simulator speaks):
//   POST {base}/v1/jobs            -> {id, status}          (Idempotency-Key honoured)
//   GET  {base}/v1/jobs/{id}       -> {id, status, progress, outputs: [{url, content_type}], error: {code, message}}
//   GET  <output url>              -> the file
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import axios, { AxiosInstance } from 'axios';
import type { Channel } from './channel-config';
import type { ChannelAdapter, RenderRequest, RenderStatus, ResultFile, ResultRef } from './channel-adapter';
import { classifyUpstreamError } from './classify-error';
import { renderRequestBody } from './render-request';
import { UpstreamError } from './upstream-error';

interface JobBody {
  id?: unknown;
  status?: unknown;
  progress?: unknown;
  outputs?: unknown;
  error?: { code?: unknown; message?: unknown } | null;
}

const USABLE_TYPE = /^(image|video)\//i;

export function createHttpJobsAdapter(channel: Channel): ChannelAdapter {
  // Keep-alive: thousands of renders in flight mean a steady stream of small polls per channel.
  const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64 });
  const base = channel.baseUrl.replace(/\/+$/, '');
  const auth = { Authorization: `Bearer ${channel.apiKey}` };
  const client: AxiosInstance = axios.create({
    baseURL: base,
    headers: auth,
    httpAgent,
    httpsAgent,
    maxRedirects: 0,
  });
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
    classifyError: classify,

    submit: (req: RenderRequest, idempotencyKey: string) =>
      call('submit', async () => {
        const model = channel.models[req.spec.model];
        if (!model) throw new UpstreamError('failed', `channel ${channel.id} does not serve ${req.spec.model}`);
        const res = await client.post<JobBody>('/v1/jobs', renderRequestBody(req, model), {
          headers: { 'Idempotency-Key': idempotencyKey },
          timeout: channel.timeouts.submitMs,
        });
        if (typeof res.data?.id !== 'string' || !res.data.id) throw new UpstreamError('failed', 'submit: the provider answered without a render id');
        return { upstreamId: res.data.id };
      }),

    poll: (upstreamId: string) =>
      call('status', async (): Promise<RenderStatus> => {
        const res = await client.get<JobBody>(`/v1/jobs/${encodeURIComponent(upstreamId)}`, { timeout: channel.timeouts.pollMs });
        return toRenderStatus(res.data, channel);
      }),

    fetchResult: (ref: ResultRef) =>
      call('download', async (): Promise<ResultFile> => {
        const url = new URL(ref.url, `${base}/`);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UpstreamError('unusable', `download: unsupported URL ${url.protocol}`);
        // The channel key goes only to the channel's own origin, never to a CDN or a third party.
        const sameOrigin = url.origin === new URL(base).origin;
        const res = await axios.get<Readable>(url.toString(), {
          responseType: 'stream',
          timeout: channel.timeouts.downloadMs,
          headers: sameOrigin ? auth : {},
          httpAgent,
          httpsAgent,
          maxRedirects: 3,
        });
        const contentType = String(res.headers['content-type'] ?? ref.contentType ?? '').split(';')[0].trim().toLowerCase();
        if (!USABLE_TYPE.test(contentType)) {
          res.data.destroy();
          throw new UpstreamError('unusable', `download: the result is ${contentType || 'of no type'}, not an image or a video`);
        }
        // axios' timeout ends at the headers; a stalled body must not hold the download forever.
        const timer = setTimeout(() => res.data.destroy(new Error('download timed out')), channel.timeouts.downloadMs).unref();
        res.data.once('close', () => clearTimeout(timer));
        const length = Number(res.headers['content-length']);
        return { stream: res.data, contentType, bytes: Number.isFinite(length) ? length : undefined };
      }),

    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

function toRenderStatus(body: JobBody, channel: Channel): RenderStatus {
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
        .map((o) => ({ url: o.url, contentType: typeof o.content_type === 'string' ? o.content_type : undefined }));
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
