// BytePlus ModelArk from the public docs (providers.md section 1 and 4): Seedance video tasks
// (`POST/GET/DELETE {base}/contents/generations/tasks`) and Seedream images (`POST {base}/images/generations`),
// `Authorization: Bearer <ARK_API_KEY>`, errors as `{error:{code,message,param,type}}`.
// Variants picked: the result is a TOS-style signed URL whose query string must come back intact
// (LiteLLM's note), the task answer carries every documented field (usage, seed, framespersecond,
// service_tier, ...), a refused output is `failed` + `error.code` OutputVideoSensitiveContentDetected,
// a refused Seedream image is HTTP 200 with `data[0].error` (per-image moderation), and a 429 is
// `RateLimitExceeded.EndpointRPMExceeded` without Retry-After (none is documented).
import { Fake, FakeContext, Job, Reply, badContentPart, bearer, mp4Bytes, pngBytes, sizeFor } from './common';

const API = '/api/v3';

const arkError = (status: number, code: string, message: string, param = ''): Reply => ({
  status,
  json: { error: { code, message, param, type: status === 429 ? 'TooManyRequests' : status === 401 ? 'Unauthorized' : 'BadRequest' } },
  headers: { 'x-request-id': `req-${Date.now()}` },
});

function promptOf(body: Record<string, unknown>): string {
  const parts = Array.isArray(body.content) ? (body.content as { type?: string; text?: string }[]) : [];
  return parts.filter((p) => p.type === 'text').map((p) => p.text ?? '').join(' ');
}


const ROLES = ['first_frame', 'last_frame', 'reference_image', 'reference_video', 'reference_audio'];

const badPart = (content: unknown[]) => badContentPart(content, ROLES);

function submitGuard(fake: Fake, prompt: string): Reply | undefined {
  if (fake.firstTime('429', prompt)) return arkError(429, 'RateLimitExceeded.EndpointRPMExceeded', 'The request has exceeded the RPM rate limit of the endpoint. Please try again later.');
  if (fake.firstTime('500', prompt)) return arkError(500, 'InternalServiceError', 'The service encountered an unexpected internal error.');
  if (prompt.includes('[fake:input-violation]'))
    return arkError(400, 'InputTextSensitiveContentDetected', 'The request failed because the input text may contain sensitive information.');
  return undefined;
}

function taskView(fake: Fake, job: Job): Record<string, unknown> {
  const phase = fake.phase(job);
  const status = phase === 'violation' ? 'failed' : phase;
  const b = job.body;
  const seconds = typeof b.duration === 'number' && b.duration > 0 ? b.duration : 5;
  const view: Record<string, unknown> = {
    id: job.id,
    model: b.model,
    status,
    error: null,
    created_at: Math.floor(job.createdAt / 1000),
    updated_at: Math.floor(Date.now() / 1000),
    seed: 11_234,
    resolution: b.resolution ?? '720p',
    ratio: b.ratio ?? '16:9',
    duration: seconds,
    framespersecond: 24,
    service_tier: 'default',
    execution_expires_after: 172_800,
    generate_audio: true,
    draft: false,
  };
  if (phase === 'violation') {
    view.error = { code: 'OutputVideoSensitiveContentDetected', message: 'The request failed because the output video may contain sensitive information.' };
  }
  if (phase === 'succeeded') {
    if (!job.extra.url) {
      const [w, h] = sizeFor(String(view.ratio));
      job.extra.url = fake.publish(`/tos/ark-content-generation/${job.id}.mp4`, 'video/mp4', mp4Bytes(seconds, w, h), {
        'X-Tos-Algorithm': 'TOS4-HMAC-SHA256',
        'X-Tos-Credential': 'AKLT/20261123/ap-southeast-1/tos/request',
        'X-Tos-Date': '20261123T000000Z',
        'X-Tos-Expires': '86400',
        'X-Tos-Signature': 'a1b2c3d4e5f6+/=',
      }, job.prompt.includes('[fake:octet]'));
    }
    view.content = { video_url: job.extra.url };
    view.usage = { completion_tokens: 108_900, total_tokens: 108_900 };
  }
  return view;
}

function images(fake: Fake, body: Record<string, unknown>): Reply {
  const prompt = typeof body.prompt === 'string' ? body.prompt : '';
  const refused = submitGuard(fake, prompt);
  if (refused) return refused;
  if (body.image !== undefined && typeof body.image !== 'string' && !(Array.isArray(body.image) && body.image.every((u) => typeof u === 'string')))
    return arkError(400, 'InvalidParameter', 'The parameter `image` specified in the request is not valid.', 'image');
  if (typeof body.model !== 'string' || !prompt) return arkError(400, 'MissingParameter', 'The required parameter model or prompt is missing.', body.model ? 'prompt' : 'model');
  const size = typeof body.size === 'string' ? body.size : '2048x2048';
  const explicit = /^(\d+)x(\d+)$/.exec(size);
  const [w, h] = explicit ? sizeFor(`${explicit[1]}:${explicit[2]}`) : [64, 64];
  const created = Math.floor(Date.now() / 1000);
  // The response's own top-level `error` (documented beside data[]): the whole call refused.
  if (prompt.includes('[fake:violation]') && prompt.includes('[fake:alt]'))
    return { status: 200, json: { model: body.model, created: Math.floor(Date.now() / 1000), data: [], error: { code: 'OutputImageSensitiveContentDetected', message: 'The request failed because the output image may contain sensitive information.' } } };
  const item = prompt.includes('[fake:violation]')
    ? { error: { code: 'OutputImageSensitiveContentDetected', message: 'The request failed because the output image may contain sensitive information.' } }
    : body.response_format === 'b64_json'
      ? { b64_json: pngBytes(w, h).toString('base64'), size }
      : {
          url: fake.publish(`/tos/ark-images/${created}-${Math.random().toString(36).slice(2)}.png`, 'image/png', pngBytes(w, h), { 'X-Tos-Signature': 'sig+/=', 'X-Tos-Expires': '86400' }),
          size,
        };
  const ok = !('error' in item);
  return { status: 200, json: { model: body.model, created, data: [item], usage: { generated_images: ok ? 1 : 0, output_tokens: ok ? 16_384 : 0, total_tokens: ok ? 16_384 : 0 } } };
}

export type ModelarkFake = Fake & { callbacks: { status: string; answer: number }[] };

export function modelarkFake(apiKey: string, renderMs?: number): ModelarkFake {
  const fake: Fake = new Fake(
    'modelark',
    ({ url, req, body }: FakeContext): Reply | undefined => {
      if (!url.pathname.startsWith(API)) return undefined;
      if (bearer(req) !== apiKey) return arkError(401, 'AuthenticationError', 'The API key or AK/SK in the request is missing or invalid.');
      const path = url.pathname.slice(API.length);
      const b = (body ?? {}) as Record<string, unknown>;
      if (req.method === 'POST' && path === '/images/generations') return images(fake, b);
      if (req.method === 'POST' && path === '/contents/generations/tasks') {
        const prompt = promptOf(b);
        const refused = submitGuard(fake, prompt);
        if (refused) return refused;
        if (typeof b.model !== 'string' || !Array.isArray(b.content)) return arkError(400, 'MissingParameter', 'The required parameter is missing.', 'content');
        const bad = badPart(b.content as unknown[]);
        if (bad) return arkError(400, 'InvalidParameter', `The parameter \`${bad}\` specified in the request is not valid.`, bad);
        const job = fake.newJob(prompt, b, `cgt-20261123${Date.now() % 1_000_000}-${Math.random().toString(36).slice(2, 7)}`);
        if (typeof b.callback_url === 'string') void notify(fake, job, b.callback_url);
        return { status: 200, json: { id: job.id } };
      }
      if (req.method === 'GET' && path === '/contents/generations/tasks') {
        // The documented list: page_num, page_size, filter.status, filter.task_ids, filter.model.
        const ids = url.searchParams.getAll('filter.task_ids');
        const items = [...fake.jobs.values()]
          .filter((j) => !url.searchParams.get('filter.model') || j.body.model === url.searchParams.get('filter.model'))
          .filter((j) => ids.length === 0 || ids.includes(j.id))
          .map((j) => taskView(fake, j))
          .filter((v) => !url.searchParams.get('filter.status') || v.status === url.searchParams.get('filter.status'));
        return { status: 200, json: { items, total: items.length } };
      }
      const m = /^\/contents\/generations\/tasks\/([^/]+)$/.exec(path);
      const job = m ? fake.jobs.get(m[1]) : undefined;
      if (m && !job) return arkError(404, 'ResourceNotFound', 'The specified task could not be found.');
      if (job && req.method === 'GET' && fake.firstTime('poll-429', job.prompt))
        return arkError(429, 'ServerOverloaded', 'The service is currently unable to handle additional requests due to server overload.');
      if (job && req.method === 'GET') return { status: 200, json: taskView(fake, job) };
      if (job && req.method === 'DELETE') {
        const phase = fake.phase(job);
        if (phase === 'queued') {
          job.cancelled = true;
          return { status: 200, json: {} };
        }
        if (phase === 'running' || phase === 'cancelled')
          return arkError(400, 'InvalidAction.TaskStatus', `The task cannot be cancelled or deleted in status ${phase}.`);
        fake.jobs.delete(job.id);
        return { status: 200, json: {} };
      }
      return undefined;
    },
    renderMs,
  );
  return Object.assign(fake, { callbacks: [] as { status: string; answer: number }[] });
}

/** Ark POSTs the task body on every status change; no signature is documented. */
async function notify(fake: Fake, job: Job, callbackUrl: string): Promise<void> {
  let last = '';
  for (let i = 0; i < 40; i++) {
    const view = taskView(fake, job);
    if (view.status !== last) {
      last = String(view.status);
      const res = await fetch(callbackUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(view) }).catch(() => undefined);
      (fake as ModelarkFake).callbacks?.push({ status: last, answer: res?.status ?? 0 });
      if (!['queued', 'running'].includes(last)) return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
