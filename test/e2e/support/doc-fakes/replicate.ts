// Replicate predictions from the public docs (providers.md section 7 and correction 7):
// `POST {base}/models/{owner}/{name}/predictions` -> 201 with the prediction, `GET {base}/predictions/{id}`,
// `POST {base}/predictions/{id}/cancel`, `Authorization: Bearer <token>`, `Prefer: wait=N` holds the
// answer up to N s, webhooks signed per Standard Webhooks with the secret of
// `GET {base}/webhooks/default/secret`.
// Variants picked: create answers 201 (not 200), an image model's `output` is a list of URLs while a
// video model's is one string, `metrics.predict_time` is a float, a refusal is `failed` with
// "flagged as sensitive" and no "(E005)", a 429 is problem-details JSON worded "Expected available in
// 1 second" with no Retry-After header, and the completed webhook is delivered signed.
import { createHmac, randomBytes } from 'node:crypto';
import { Fake, FakeContext, Job, Reply, bearer, mp4Bytes, pngBytes, sizeFor } from './common';

const API = '/v1';
const SECRET_BYTES = randomBytes(24);
export const REPLICATE_WEBHOOK_SECRET = `whsec_${SECRET_BYTES.toString('base64')}`;

/** Models whose output is a list (image models such as flux-schnell) rather than one URL. */
const LIST_OUTPUT = /flux|sdxl|image/;

const problem = (status: number, title: string, detail: string): Reply => ({ status, json: { title, detail, status }, headers: { 'content-type': 'application/problem+json' } });

function prediction(fake: Fake, job: Job): Record<string, unknown> {
  const phase = fake.phase(job);
  const status = phase === 'queued' ? 'starting' : phase === 'running' ? 'processing' : phase === 'violation' ? 'failed' : phase === 'cancelled' ? 'canceled' : phase === 'expired' ? 'aborted' : 'succeeded';
  const get = `${fake.origin}${API}/predictions/${job.id}`;
  const view: Record<string, unknown> = {
    id: job.id,
    model: job.extra.model,
    version: 'hidden',
    input: (job.body.input ?? {}) as object,
    logs: '',
    output: null,
    data_removed: false,
    error: null,
    status,
    created_at: new Date(job.createdAt).toISOString(),
    urls: { cancel: `${get}/cancel`, get, stream: `${fake.origin}/stream/${job.id}`, web: `https://replicate.com/p/${job.id}` },
  };
  if (phase !== 'queued') view.started_at = new Date(job.createdAt + fake.renderMs / 4).toISOString();
  if (status === 'failed') view.error = 'The input or output was flagged as sensitive. Please try again with different inputs.';
  if (status === 'succeeded') {
    const input = (job.body.input ?? {}) as Record<string, unknown>;
    const [w, h] = sizeFor(String(input.aspect_ratio ?? '16:9'));
    if (!job.extra.url) {
      const image = LIST_OUTPUT.test(String(job.extra.model));
      // [fake:alt]: the other documented form (an image model with one URL, a video model with a list).
      job.extra.list = image !== job.prompt.includes('[fake:alt]');
      const seconds = Number(input.duration) > 0 ? Number(input.duration) : 5;
      job.extra.url = image
        ? fake.publish(`/pbxt/${job.id}/out-0.png`, 'image/png', pngBytes(w, h))
        : fake.publish(`/pbxt/${job.id}/output.mp4`, 'video/mp4', mp4Bytes(seconds, w, h));
    }
    view.output = job.extra.list ? [job.extra.url] : job.extra.url;
    view.metrics = { predict_time: 2.718, total_time: 3.1 };
  }
  if (['succeeded', 'failed', 'canceled', 'aborted'].includes(status)) view.completed_at = new Date(job.createdAt + fake.renderMs).toISOString();
  return view;
}

export function replicateFake(apiKey: string, renderMs?: number): ReplicateFake {
  const webhooks: { status: number; event: string }[] = [];
  const fake = new Fake(
    'replicate',
    async ({ url, req, body }: FakeContext): Promise<Reply | undefined> => {
      if (!url.pathname.startsWith(API)) return undefined;
      if (bearer(req) !== apiKey) return problem(401, 'Unauthenticated', 'You did not pass a valid authentication token');
      const path = url.pathname.slice(API.length);
      if (req.method === 'GET' && path === '/webhooks/default/secret') return { status: 200, json: { key: REPLICATE_WEBHOOK_SECRET } };
      const create = /^\/models\/([^/]+\/[^/]+)\/predictions$/.exec(path);
      if (create && req.method === 'POST') {
        const b = (body ?? {}) as Record<string, unknown>;
        const input = (b.input ?? {}) as Record<string, unknown>;
        const prompt = typeof input.prompt === 'string' ? input.prompt : '';
        if (fake.firstTime('429', prompt))
          return prompt.includes('[fake:alt]')
            ? problem(429, 'Request was throttled', 'Request was throttled. Your rate limit resets in ~1s.')
            : problem(429, 'Request was throttled', 'Request was throttled. Expected available in 1 second.');
        if (fake.firstTime('500', prompt)) return problem(500, 'Internal Server Error', 'Internal Server Error');
        if (!b.input || typeof b.input !== 'object') return problem(422, 'Input validation failed', '- input: input is required');
        if (prompt.includes('[fake:input-violation]')) return problem(422, 'Input validation failed', 'The input or output was flagged as sensitive. Please try again with different inputs.');
        const job = fake.newJob(prompt, b, randomBytes(13).toString('base64url').toLowerCase().replace(/[^a-z0-9]/g, 'x').slice(0, 20) + 'rmt0');
        job.extra.model = create[1];
        if (typeof b.webhook === 'string') void deliver(fake, job, b.webhook, webhooks);
        const wait = /wait(?:=(\d+))?/.exec(String(req.headers.prefer ?? ''));
        if (wait) {
          const until = Date.now() + Math.min(60, Number(wait[1] ?? 60)) * 1000;
          while (Date.now() < until && ['queued', 'running'].includes(fake.phase(job))) await new Promise((r) => setTimeout(r, 50));
        }
        return { status: 201, json: prediction(fake, job) };
      }
      const m = /^\/predictions\/([^/]+)(\/cancel)?$/.exec(path);
      const job = m ? fake.jobs.get(m[1]) : undefined;
      if (req.method === 'GET' && path === '/predictions') return { status: 200, json: { next: null, previous: null, results: [...fake.jobs.values()].map((j) => prediction(fake, j)) } };
      if (m && !job) return problem(404, 'Not found', 'The requested resource could not be found.');
      if (job && m![2] && req.method === 'POST') {
        if (['queued', 'running'].includes(fake.phase(job))) job.cancelled = true;
        return { status: 200, json: prediction(fake, job) };
      }
      if (job && req.method === 'GET' && fake.firstTime('poll-429', job.prompt)) return problem(429, 'Request was throttled', 'Request was throttled. Expected available in 1 second.');
      if (job && req.method === 'GET') return { status: 200, json: prediction(fake, job) };
      return undefined;
    },
    renderMs,
  ) as ReplicateFake;
  fake.webhooks = webhooks;
  return fake;
}

export type ReplicateFake = Fake & { webhooks: { status: number; event: string }[] };

/** The `completed` event, signed per Standard Webhooks: v1,base64(HMAC-SHA256("{id}.{ts}.{body}")). */
async function deliver(fake: Fake, job: Job, hook: string, log: { status: number; event: string }[]): Promise<void> {
  while (['queued', 'running'].includes(fake.phase(job))) await new Promise((r) => setTimeout(r, 50));
  const body = JSON.stringify(prediction(fake, job));
  const id = `msg_${randomBytes(12).toString('hex')}`;
  const ts = String(Math.floor(Date.now() / 1000));
  const sig = createHmac('sha256', SECRET_BYTES).update(`${id}.${ts}.${body}`).digest('base64');
  try {
    const res = await fetch(hook, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': `v1,${sig}` }, body });
    log.push({ status: res.status, event: 'completed' });
  } catch {
    log.push({ status: 0, event: 'completed' });
  }
}
