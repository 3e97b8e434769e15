// The fal.ai queue from the public docs (providers.md section 6 and correction 5):
// `POST {base}/{owner}/{app}[/{subpath}]` with `Authorization: Key <FAL_KEY>`, status at
// `{base}/{owner}/{app}/requests/{id}/status` (owner/app only, never the sub-path), the result at
// `.../requests/{id}`, cancel with `PUT .../requests/{id}/cancel`. Statuses are only IN_QUEUE,
// IN_PROGRESS and COMPLETED; a COMPLETED request may hold an error (422 `detail[].type`).
// Variants picked: the submit answer has no `response_url` (only `status_url` and `cancel_url`), the
// result before completion is 400 `{"detail":"Request is still in progress"}`, the Seedance apps
// exist only under their sub-paths (`text-to-video`, ...), an image app answers `images[]`, a
// refusal is a COMPLETED request whose result is 422 `content_policy_violation`, and a 429 carries
// `X-Fal-Retryable: true` and no Retry-After.
import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { Fake, FakeContext, Job, Reply, mp4Bytes, pngBytes, sizeFor } from './common';

/** The apps this fake hosts: whether a bare `owner/app` answers, and which sub-paths exist. */
const APPS: Record<string, { bare: boolean; subpaths: string[]; kind: 'video' | 'image' }> = {
  'bytedance/seedance-2.0': { bare: false, subpaths: ['text-to-video', 'image-to-video', 'reference-to-video'], kind: 'video' },
  'bytedance/seedance-2.5': { bare: false, subpaths: ['text-to-video', 'image-to-video', 'reference-to-video'], kind: 'video' },
  'fal-ai/veo3.1': { bare: true, subpaths: ['image-to-video', 'first-last-frame-to-video', 'reference-to-video'], kind: 'video' },
  'fal-ai/veo3.1/fast': { bare: true, subpaths: ['image-to-video', 'first-last-frame-to-video'], kind: 'video' },
  'fal-ai/nano-banana': { bare: true, subpaths: ['edit'], kind: 'image' },
};

/** `a/b/c/d` -> the hosted app and its sub-path, longest app first. */
function resolveApp(path: string): { app: string; subpath: string } | undefined {
  for (const app of Object.keys(APPS).sort((a, b) => b.length - a.length)) {
    if (path === app) return APPS[app].bare ? { app, subpath: '' } : undefined;
    if (path.startsWith(`${app}/`)) {
      const subpath = path.slice(app.length + 1);
      if (APPS[app].subpaths.includes(subpath)) return { app, subpath };
    }
  }
  return undefined;
}

const seconds = (d: unknown) => Number(String(d ?? '5').replace(/s$/, '')) || 5;

function result(fake: Fake, job: Job): Reply {
  const phase = fake.phase(job);
  if (phase === 'queued' || phase === 'running') return { status: 400, json: { detail: 'Request is still in progress' } };
  if (job.prompt.includes('[fake:runner-error]'))
    return { status: 500, json: { detail: 'Internal server error', error_type: 'internal_error' }, headers: { 'x-fal-error-type': 'internal_error', 'x-fal-retryable': 'false' } };
  if (job.prompt.includes('[fake:no-media]'))
    return { status: 422, json: { detail: [{ loc: ['body'], msg: 'No media was generated for this request.', type: 'no_media_generated', url: 'https://docs.fal.ai/errors#no_media_generated' }] } };
  if (phase === 'violation')
    return {
      status: 422,
      json: { detail: [{ loc: ['body', 'prompt'], msg: 'The content could not be processed because it contained material flagged by a content checker.', type: 'content_policy_violation', url: 'https://docs.fal.ai/errors#content_policy_violation', input: job.prompt }] },
      headers: { 'x-fal-retryable': 'false' },
    };
  if (!job.extra.output) {
    const ratio = String(job.body.aspect_ratio ?? '16:9');
    const [w, h] = sizeFor(ratio);
    if (job.extra.kind === 'image') {
      const url = fake.publish(`/files/zebra/${job.id}.png`, 'image/png', pngBytes(w, h));
      job.extra.output = { images: [{ url, width: w, height: h, content_type: 'image/png' }], description: '' };
    } else {
      const bytes = mp4Bytes(seconds(job.body.duration), w, h);
      const url = fake.publish(`/files/lion/${job.id}_output.mp4`, 'video/mp4', bytes);
      job.extra.output = { video: { url, content_type: 'video/mp4', file_name: 'output.mp4', file_size: bytes.length }, seed: 1_234_567 };
    }
  }
  return { status: 200, json: job.extra.output };
}

/** fal's webhook key: ED25519, published as a JWKS (OKP, crv Ed25519, x base64url). */
const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const JWKS = { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'fake-fal-1', use: 'sig', alg: 'EdDSA' }] };
const USER_ID = 'fake-fal-user';

export type FalFake = Fake & { webhooks: { status: string; answer: number }[] };

export function falFake(apiKey: string, renderMs?: number): FalFake {
  const webhooks: { status: string; answer: number }[] = [];
  const fake = new Fake(
    'fal',
    ({ url, req, body, origin }: FakeContext): Reply | undefined => {
      if (url.pathname === '/.well-known/jwks.json') return { status: 200, json: JWKS };
      if (url.pathname.startsWith('/files/')) return undefined;
      if (req.headers.authorization !== `Key ${apiKey}`) return { status: 401, json: { detail: 'Invalid credentials' } };
      const path = url.pathname.replace(/^\/+/, '');
      const req_ = /^(.+)\/requests\/([^/]+)(\/status|\/cancel)?$/.exec(path);
      if (req_) {
        const job = fake.jobs.get(req_[2]);
        // The queue knows a request under its owner/app only: a sub-path here is another app.
        if (!job || job.extra.app !== req_[1]) return { status: 404, json: { detail: 'Request not found' } };
        const phase = fake.phase(job);
        const done = phase === 'succeeded' || phase === 'violation' || phase === 'cancelled';
        if (req_[3] === '/status' && req.method === 'GET' && phase === 'violation' && job.prompt.includes('[fake:alt]'))
          // A third-party OpenAPI of the queue lists FAILED; LiteLLM reads an `error` field (providers.md 6).
          return { status: 200, json: { status: 'FAILED', request_id: job.id, error: 'Internal error while processing the request', error_type: 'internal_error' } };
        if (req_[3] === '/status' && req.method === 'GET') {
          if (fake.firstTime('poll-429', job.prompt)) return { status: 429, json: { detail: 'Too many requests' }, headers: { 'x-fal-retryable': 'true' } };
          if (phase === 'queued') return { status: 202, json: { status: 'IN_QUEUE', queue_position: 0, request_id: job.id } };
          if (phase === 'running') return { status: 202, json: { status: 'IN_PROGRESS', request_id: job.id, logs: url.searchParams.get('logs') === '1' ? [] : null } };
          return { status: 200, json: { status: 'COMPLETED', request_id: job.id, logs: null, metrics: { inference_time: 3.2 } } };
        }
        if (req_[3] === '/cancel' && req.method === 'PUT') {
          if (done) return { status: 400, json: { status: 'ALREADY_COMPLETED' } };
          job.cancelled = true;
          return { status: 202, json: { status: 'CANCELLATION_REQUESTED' } };
        }
        if (!req_[3] && req.method === 'GET') {
          if (phase === 'cancelled') return { status: 400, json: { detail: 'Request was cancelled' } };
          return result(fake, job);
        }
        return undefined;
      }
      if (req.method !== 'POST') return undefined;
      const target = resolveApp(path);
      if (!target) return { status: 404, json: { detail: `Application '${path}' not found` } };
      const b = (body ?? {}) as Record<string, unknown>;
      const prompt = typeof b.prompt === 'string' ? b.prompt : '';
      if (fake.firstTime('429', prompt)) return { status: 429, json: { detail: 'Too many requests' }, headers: { 'x-fal-retryable': 'true' } };
      if (fake.firstTime('500', prompt)) return { status: 503, json: { detail: 'Runner scheduling failure', error_type: 'runner_scheduling_failure' }, headers: { 'x-fal-error-type': 'runner_scheduling_failure', 'x-fal-retryable': 'true' } };
      if (prompt.includes('[fake:input-violation]'))
        return { status: 422, json: { detail: [{ loc: ['body', 'prompt'], msg: 'The prompt was flagged by the content checker.', type: 'content_policy_violation', url: 'https://docs.fal.ai/errors#content_policy_violation', input: prompt }] } };
      if (!prompt) return { status: 422, json: { detail: [{ loc: ['body', 'prompt'], msg: 'Field required', type: 'missing' }] } };
      // The documented input names per sub-path (fal model pages).
      if (target.subpath === 'reference-to-video' && !(Array.isArray(b.image_urls) && b.image_urls.length))
        return { status: 422, json: { detail: [{ loc: ['body', 'image_urls'], msg: 'Field required', type: 'missing' }] } };
      if (target.subpath === 'image-to-video' && typeof b.image_url !== 'string')
        return { status: 422, json: { detail: [{ loc: ['body', 'image_url'], msg: 'Field required', type: 'missing' }] } };
      const job = fake.newJob(prompt, b, randomUUID());
      // The queue keeps a request under its owner/app alone: `fal-ai/veo3.1/fast` polls under `fal-ai/veo3.1`.
      job.extra.app = target.app.split('/').slice(0, 2).join('/');
      job.extra.kind = APPS[target.app].kind;
      const hook = url.searchParams.get('fal_webhook');
      if (hook && !prompt.includes('[fake:no-hook]')) void deliver(fake, job, hook, webhooks);
      const base = `${origin}/${job.extra.app}/requests/${job.id}`;
      return { status: 200, json: { request_id: job.id, gateway_request_id: job.id, status_url: `${base}/status`, cancel_url: `${base}/cancel`, queue_position: 0 } };
    },
    renderMs,
  ) as FalFake;
  fake.webhooks = webhooks;
  return fake;
}

/** The webhook: `{request_id, gateway_request_id, status, payload}`, signed with ED25519 over
 * `request_id \n user_id \n timestamp \n sha256_hex(body)`, the signature in hex. */
async function deliver(fake: Fake, job: Job, hook: string, log: { status: string; answer: number }[]): Promise<void> {
  while (['queued', 'running'].includes(fake.phase(job))) await new Promise((r) => setTimeout(r, 50));
  if (fake.phase(job) === 'cancelled') return;
  const res = result(fake, job);
  const ok = res.status === 200;
  const body = JSON.stringify({ request_id: job.id, gateway_request_id: job.id, status: ok ? 'OK' : 'ERROR', payload: res.json, ...(ok ? {} : { error: `Invalid status code: ${res.status}` }) });
  const ts = String(Math.floor(Date.now() / 1000));
  const message = [job.id, USER_ID, ts, createHash('sha256').update(body).digest('hex')].join('\n');
  const signature = sign(null, Buffer.from(message), privateKey).toString('hex');
  const answer = await fetch(hook, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-fal-webhook-request-id': job.id, 'x-fal-webhook-user-id': USER_ID, 'x-fal-webhook-timestamp': ts, 'x-fal-webhook-signature': signature },
    body,
  }).then((r) => r.status, () => 0);
  log.push({ status: ok ? 'OK' : 'ERROR', answer });
}
