// MiniMax video v2 from the public docs (providers.md section 5 and correction 1):
// `POST /v2/video_generation` -> `{task_id}`, `GET /v2/query/video_generation/{task_id}` -> `{task:{...}}`,
// `DELETE /v2/video_generation/{task_id}`, `Authorization: Bearer <key>`. Errors are real HTTP
// statuses with the envelope `{type:"error", error:{type, message, http_code}, request_id}`, the
// legacy numeric code inside `message`; input moderation is 422 "sensitive" (1026), a rate limit 429 (1002).
// Variants picked: the create answer has no `base_resp` (optional in v2), a refused output is
// `failed` with `error.code` as the string "1027", `content.url` is re-signed on every query, and a
// `callback_url` is first verified with a challenge echo before any status is posted to it.
import { randomBytes } from 'node:crypto';
import { Fake, FakeContext, Job, Reply, badContentPart, bearer, mp4Bytes, sizeFor } from './common';

const v2Error = (httpCode: number, type: string, message: string): Reply => ({
  status: httpCode,
  json: { type: 'error', error: { type, message, http_code: httpCode }, request_id: randomBytes(8).toString('hex') },
});

function promptOf(body: Record<string, unknown>): string {
  const parts = Array.isArray(body.content) ? (body.content as { type?: string; text?: string }[]) : [];
  return parts.filter((p) => p.type === 'text').map((p) => p.text ?? '').join(' ');
}

/** A MiniMax resolution word ("768P") -> the short side in pixels, scaled down for the fake. */
const RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9'];

const ROLES = ['first_frame', 'last_frame', 'reference_image', 'reference_video', 'reference_audio', 'base_video'];

const badPart = (content: unknown[]) => badContentPart(content, ROLES);

function taskView(fake: Fake, job: Job): Record<string, unknown> {
  const phase = fake.phase(job);
  const b = job.body;
  const seconds = typeof b.duration === 'number' ? b.duration : Number(b.duration) || 6;
  const task: Record<string, unknown> = {
    id: job.id,
    model: b.model,
    status: phase === 'violation' ? 'failed' : phase,
    task_type: 'video_generation',
    modality: 'video',
    resolution: b.resolution ?? '768P',
    duration: seconds,
    ratio: b.ratio ?? 'adaptive',
    error: null,
  };
  if (phase === 'violation') task.error = { code: '1027', message: 'output new_sensitive' };
  if (phase === 'succeeded') {
    if (!job.extra.path) {
      const [w, h] = sizeFor(RATIOS.includes(String(b.ratio)) ? String(b.ratio) : '16:9');
      job.extra.path = `/minimax-output/${job.id}/output.mp4`;
      job.extra.bytes = mp4Bytes(seconds, w, h);
    }
    // The URL is time-limited; every query answers a fresh signature for the same file.
    task.content = { url: fake.publish(String(job.extra.path), 'video/mp4', job.extra.bytes as Buffer, { Expires: String(Math.floor(Date.now() / 1000) + 3600), Signature: 'mm-sig' }) };
    task.usage = { output_seconds: seconds };
  }
  return { task, base_resp: { status_code: 0, status_msg: 'success' } };
}

export function minimaxFake(apiKey: string, renderMs?: number): Fake {
  const challenges: { url: string; echoed: boolean }[] = [];
  const fake: Fake = new Fake(
    'minimax',
    async ({ url, req, body }: FakeContext): Promise<Reply | undefined> => {
      if (bearer(req) !== apiKey) return v2Error(401, 'authentication_error', 'invalid api key (1004)');
      const b = (body ?? {}) as Record<string, unknown>;
      if (req.method === 'POST' && url.pathname === '/v2/video_generation') {
        const prompt = promptOf(b);
        if (fake.firstTime('429', prompt)) return v2Error(429, 'rate_limit_error', 'rate limit exceeded, please try again later (1002)');
        if (fake.firstTime('500', prompt)) return v2Error(500, 'api_error', 'internal error (1000)');
        // The older shape, still to be accepted: HTTP 200 whose base_resp carries the code.
        if (prompt.includes('[fake:alt]') && prompt.includes('[fake:input-violation]'))
          return { status: 200, json: { task_id: '', base_resp: { status_code: 1026, status_msg: 'input new_sensitive' } } };
        if (prompt.includes('[fake:alt]') && fake.firstTime('alt-429', prompt))
          return { status: 200, json: { task_id: '', base_resp: { status_code: 1002, status_msg: 'rate limit exceeded' } } };
        if (prompt.includes('[fake:input-violation]')) return v2Error(422, 'unprocessable_entity_error', 'input new_sensitive (1026)');
        if (typeof b.model !== 'string' || !Array.isArray(b.content)) return v2Error(400, 'invalid_request_error', 'invalid params (2013)');
        const bad = badPart(b.content);
        if (bad) return v2Error(400, 'invalid_request_error', `invalid params, ${bad} (2013)`);
        if (typeof b.callback_url === 'string') {
          const check = await challenge(b.callback_url);
          challenges.push({ url: b.callback_url, echoed: check });
        }
        const job = fake.newJob(prompt, b, String(Date.now()) + String(Math.floor(Math.random() * 1000)).padStart(3, '0'));
        return { status: 200, json: { task_id: job.id } };
      }
      const q = /^\/v2\/query\/video_generation\/([^/]+)$/.exec(url.pathname);
      if (q && req.method === 'GET') {
        const job = fake.jobs.get(q[1]);
        if (job && fake.firstTime('poll-429', job.prompt)) return v2Error(429, 'rate_limit_error', 'rate limit exceeded, please try again later (1002)');
        return job ? { status: 200, json: taskView(fake, job) } : v2Error(404, 'not_found_error', 'task not found (2013)');
      }
      const d = /^\/v2\/video_generation\/([^/]+)$/.exec(url.pathname);
      if (d && req.method === 'DELETE') {
        const job = fake.jobs.get(d[1]);
        if (!job) return v2Error(404, 'not_found_error', 'task not found (2013)');
        job.cancelled = true;
        return { status: 200, json: { task_id: job.id, action: 'delete', status: 'deleted' } };
      }
      return undefined;
    },
    renderMs,
  );
  (fake as Fake & { challenges: typeof challenges }).challenges = challenges;
  return fake;
}

/** MiniMax verifies a callback URL first: it POSTs `{challenge}` and expects the same value back. */
async function challenge(callbackUrl: string): Promise<boolean> {
  const value = randomBytes(12).toString('hex');
  try {
    const res = await fetch(callbackUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ challenge: value }), signal: AbortSignal.timeout(3000) });
    const text = await res.text();
    return res.ok && text.includes(value);
  } catch {
    return false;
  }
}

export type MinimaxFake = Fake & { challenges: { url: string; echoed: boolean }[] };
