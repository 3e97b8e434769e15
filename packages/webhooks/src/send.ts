// One delivery attempt: POST the body to the target. The target is client input, so it goes
// through the reference-media URL policy (packages/media: https only, every resolved address
// public unless ALLOW_PRIVATE_MEDIA_URLS) and the socket is pinned to the checked address (no
// second DNS lookup a rebinding server could answer differently). Redirects are not followed: a
// 3xx is a failed attempt, so a receiver cannot bounce our signed POST to an internal address.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkUrl, isMediaProblem, type Resolver } from '@mediagen/media';

export interface SendPolicy {
  allowPrivate: boolean;
  timeoutMs: number;
  resolve?: Resolver;
}

export interface SendResult {
  /** HTTP status of the answer; null when none came. */
  statusCode: number | null;
  ok: boolean;
  /** Why the attempt failed (refused URL, network error, timeout, non-2xx). */
  error: string | null;
  durationMs: number;
}

/** Bytes of the receiver's answer read (and dropped): enough to end the exchange cleanly. */
const MAX_ANSWER_BYTES = 64 * 1024;

export async function sendWebhook(url: string, body: string, headers: Record<string, string>, policy: SendPolicy): Promise<SendResult> {
  const started = Date.now();
  const done = (statusCode: number | null, error: string | null): SendResult => ({
    statusCode,
    ok: error === null,
    error,
    durationMs: Date.now() - started,
  });
  const signal = AbortSignal.timeout(policy.timeoutMs);
  let checked;
  try {
    checked = await checkUrl(url, { allowPrivate: policy.allowPrivate, resolve: policy.resolve });
  } catch (err) {
    return done(null, isMediaProblem(err) ? `refused: ${(err as Error).message}` : `refused: ${String(err)}`);
  }
  if (signal.aborted) return done(null, `timeout after ${policy.timeoutMs} ms`);
  return new Promise<SendResult>((resolve) => {
    const { addresses } = checked;
    const lookup: LookupFunction = (_host, options, cb) => {
      if (options.all) (cb as (e: null, a: typeof addresses) => void)(null, addresses);
      else cb(null, addresses[0].address, addresses[0].family);
    };
    const mod = checked.url.protocol === 'https:' ? https : http;
    const agent = new mod.Agent({ keepAlive: false, lookup } as http.AgentOptions);
    const payload = Buffer.from(body);
    let settled = false;
    const finish = (r: SendResult) => {
      if (settled) return;
      settled = true;
      agent.destroy();
      resolve(r);
    };
    const req = mod.request(checked.url, {
      method: 'POST',
      agent,
      signal,
      headers: {
        'content-type': 'application/json',
        'content-length': String(payload.length),
        'user-agent': 'mediagen-webhooks/1.0',
        ...headers,
      },
    });
    req.on('response', (res) => {
      const code = res.statusCode ?? 0;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) res.destroy();
      });
      const end = () =>
        finish(done(code, code >= 200 && code < 300 ? null : code >= 300 && code < 400 ? `redirect ${code} not followed` : `HTTP ${code}`));
      res.on('end', end);
      res.on('close', end);
      res.on('error', end);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      finish(done(null, signal.aborted ? `timeout after ${policy.timeoutMs} ms` : `network error (${err.code ?? err.message})`));
    });
    req.end(payload);
  });
}
