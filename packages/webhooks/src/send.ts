// One delivery attempt: POST the body to the target. The target is client input, so it goes
// through the reference-media URL policy (packages/media: https only, every resolved address
// public unless ALLOW_PRIVATE_MEDIA_URLS) and the socket is pinned to the checked address (no
// second DNS lookup a rebinding server could answer differently). Redirects are not followed: a
// 3xx is a failed attempt, so a receiver cannot bounce our signed POST to an internal address.
// Besides the attempt's overall deadline, connecting and the answer's first byte have short
// deadlines of their own: a receiver that never answers frees its delivery slot in seconds.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkUrl, isMediaProblem, UnresolvedHost, type Resolver } from '@mediagen/media';

export interface SendPolicy {
  allowPrivate: boolean;
  /** The whole attempt: connect, send, answer. */
  timeoutMs: number;
  /** From the start until the connection (TLS included) is up; default timeoutMs. */
  connectTimeoutMs?: number;
  /** From the body sent until the answer's status line; default timeoutMs. */
  firstByteTimeoutMs?: number;
  resolve?: Resolver;
}

export interface SendResult {
  /** HTTP status of the answer; null when none came. */
  statusCode: number | null;
  ok: boolean;
  /** Why the attempt failed (refused URL, network error, timeout, non-2xx). */
  error: string | null;
  /** The address policy refused the URL (not a network failure): retrying cannot help. */
  refused?: boolean;
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
    if (err instanceof UnresolvedHost) return done(null, `network error (${err.message})`);
    return { ...done(null, isMediaProblem(err) ? `refused: ${(err as Error).message}` : `refused: ${String(err)}`), refused: true };
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
    let phaseTimer: NodeJS.Timeout | undefined;
    let phaseError: string | null = null;
    /** A deadline for one phase (connect, first byte): the request is destroyed when it passes. */
    const phase = (ms: number | undefined, what: string) => {
      clearTimeout(phaseTimer);
      if (ms === undefined || ms >= policy.timeoutMs) return;
      phaseTimer = setTimeout(() => {
        phaseError = `${what} within ${ms} ms`;
        req.destroy(new Error(phaseError));
      }, ms);
    };
    const finish = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(phaseTimer);
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
    phase(policy.connectTimeoutMs, 'no connection');
    req.on('socket', (socket) => {
      const connected = () => phase(undefined, '');
      socket.once(checked.url.protocol === 'https:' ? 'secureConnect' : 'connect', connected);
    });
    // Armed once the whole body is handed to the socket: from then on only the receiver is waited for.
    req.on('finish', () => phase(policy.firstByteTimeoutMs, 'no answer'));
    req.on('response', (res) => {
      clearTimeout(phaseTimer);
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
      finish(done(null, phaseError ?? (signal.aborted ? `timeout after ${policy.timeoutMs} ms` : `network error (${err.code ?? err.message})`)));
    });
    req.end(payload);
  });
}
