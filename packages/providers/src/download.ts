// The one path by which a provider's result becomes a file of ours. Every
// ResultRef of every adapter goes through here, URL or inline, so no adapter can skip a defence:
// - URL policy of reference media (packages/media checkUrl + safeFetch): https only, no private,
//   loopback or link-local address unless ALLOW_PRIVATE_MEDIA_URLS; the socket is pinned to the
//   address that was checked (no DNS rebinding); each redirect hop is checked again the same way.
// - Headers an adapter attaches (Veo's key) go to the URL's own origin only, never to a redirect target.
// - A byte cap per media type, enforced while streaming (Content-Length is not trusted).
// - The content type is sniffed from the bytes and must be on the allow-list of the task's type
//   (png/jpeg/webp images; mp4/webm/quicktime video). SVG, HTML, anything unrecognised: refused.
//   The provider's Content-Type header is never used for what we store or serve.
// - A total deadline over the whole download, body included: a dripping body is cut.
// - Bounded memory: the body is copied into pooled buffers and lent to storage chunk by chunk
//   (packages/media pooled-request.ts, Node's undici client; result-body.ts), never held whole.
// - Outputs capped to what the task asked for.
import { idleDownloadClients, MediaProblem, pooledRequest, safeFetch, sniffMime, type Hop, type PooledResponse, type Resolver } from '@mediagen/media';
import type { ResultRef } from './channel-adapter';
import { bufferBody, checkedBody, type ResultBody } from './result-body';
import { UpstreamError } from './upstream-error';

export type { ResultBody } from './result-body';

export type ResultType = 'image' | 'video';

/** What may be stored and served as a result, by task type. */
export const RESULT_ALLOW_LIST: Readonly<Record<ResultType, readonly string[]>> = {
  image: ['image/png', 'image/jpeg', 'image/webp'],
  video: ['video/mp4', 'video/webm', 'video/quicktime'],
};

export interface DownloadPolicy {
  /** ALLOW_PRIVATE_MEDIA_URLS (development and tests only): http:// and private addresses allowed. */
  allowPrivate: boolean;
  /** Largest result file per media type (RESULT_MAX_IMAGE_BYTES, RESULT_MAX_VIDEO_BYTES). */
  maxBytes: Readonly<Record<ResultType, number>>;
  /** Redirect hops followed, each checked again; 0 refuses every redirect. */
  maxRedirects: number;
  /** DNS seam for tests. */
  resolve?: Resolver;
  /** Connection seam for tests (packages/media Hop); defaults to the pinned, pooled request. */
  hop?: Hop<PooledResponse>;
}

export const DEFAULT_DOWNLOAD_POLICY: Readonly<DownloadPolicy> = Object.freeze({
  allowPrivate: false,
  maxBytes: Object.freeze({ image: 50 * 1024 * 1024, video: 1024 * 1024 * 1024 }),
  maxRedirects: 3,
});

/**
 * The download policy of a deployment. Private addresses are allowed with ALLOW_PRIVATE_MEDIA_URLS
 * (refused in production by packages/config), and for the built-in development channels (no
 * PROVIDER_CONFIG outside production): those point at the simulator on loopback by construction.
 */
export function downloadPolicyFromConfig(cfg: {
  NODE_ENV: string;
  ALLOW_PRIVATE_MEDIA_URLS: boolean;
  PROVIDER_CONFIG?: string;
  RESULT_MAX_IMAGE_BYTES: number;
  RESULT_MAX_VIDEO_BYTES: number;
}): DownloadPolicy {
  const devSimulator = !cfg.PROVIDER_CONFIG && cfg.NODE_ENV !== 'production';
  return {
    ...DEFAULT_DOWNLOAD_POLICY,
    allowPrivate: cfg.ALLOW_PRIVATE_MEDIA_URLS || devSimulator,
    maxBytes: { image: cfg.RESULT_MAX_IMAGE_BYTES, video: cfg.RESULT_MAX_VIDEO_BYTES },
  };
}

/** An opened result: its sniffed type and its bytes, counted against the cap, cut by the deadline. */
export interface OpenedResult {
  contentType: string;
  body: ResultBody;
}

/** How many result files a task asked for: one video, or one image (the API has no count). */
export const expectedOutputs = (_type: ResultType): number => 1;

/**
 * The outputs to download: at most what was asked for. Extra ones are ignored (not an error: a
 * provider answering two images for one asked keeps the first).
 */
export function capOutputs(outputs: readonly ResultRef[], type: ResultType): ResultRef[] {
  return outputs.slice(0, expectedOutputs(type));
}

/** Bytes needed to tell every allowed type apart (sniffMime reads at most 64). */
const SNIFF_BYTES = 64;

/**
 * Opens one result for storage. Throws UpstreamError: 'unusable' when the result is not an allowed
 * file (wrong type, too large, refused URL, gone), 'transient' when the upstream may serve it on
 * another try (5xx, 429, connection cut, deadline).
 */
export async function openResult(ref: ResultRef, type: ResultType, policy: DownloadPolicy, signal: AbortSignal): Promise<OpenedResult> {
  const cap = policy.maxBytes[type];
  if (ref.kind === 'inline') {
    if (ref.data.length > cap) throw new UpstreamError('unusable', `download: the inline result is larger than ${cap} bytes`);
    const contentType = checkType(ref.data, type);
    return { contentType, body: bufferBody(ref.data) };
  }
  const origin = originOf(ref.url);
  // Adapter headers (an API key) only for the URL the adapter named, never for a redirect target.
  const request = policy.hop ?? pooledRequest;
  const hop: Hop<PooledResponse> = (url, addresses, headers, sig) => request(url, addresses, url.origin === origin ? headers : {}, sig);
  let res;
  try {
    ({ res } = await safeFetch(
      ref.url,
      { allowPrivate: policy.allowPrivate, resolve: policy.resolve, maxRedirects: policy.maxRedirects },
      { headers: { 'user-agent': 'mediagen-result-download/1.0', ...(ref.headers ?? {}) }, signal },
      hop,
    ));
  } catch (e) {
    throw fetchError(e, signal);
  }
  const status = res.statusCode ?? 0;
  if (status !== 200) {
    res.destroy();
    if (status === 429 || status >= 500) throw new UpstreamError('transient', `download: HTTP ${status}`, undefined, status);
    if (status >= 300 && status < 400) throw new UpstreamError('unusable', `download: redirected more than ${policy.maxRedirects} times or without a target`, undefined, status);
    // 404/410/403: expired or withheld (Replicate deletes after an hour, signed links lapse).
    throw new UpstreamError('unusable', `download: HTTP ${status}`, undefined, status);
  }
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > cap) {
    res.destroy();
    throw new UpstreamError('unusable', `download: the result is ${declared} bytes, over the ${type} cap of ${cap}`);
  }
  const { contentType, body } = await checkedBody(res, { cap, type, headBytes: SNIFF_BYTES, check: (head) => checkType(head, type) }, signal);
  return { contentType, body };
}

/** The sniffed type of the bytes, when it is on the task type's allow-list. */
export function checkType(bytes: Buffer, type: ResultType): string {
  if (bytes.length === 0) throw new UpstreamError('unusable', 'download: the result file is empty');
  const sniffed = sniffMime(bytes.subarray(0, SNIFF_BYTES));
  if (!sniffed || !RESULT_ALLOW_LIST[type].includes(sniffed))
    throw new UpstreamError('unusable', `download: the result is ${sniffed ?? 'not a recognised media file'}, not an allowed ${type} (${RESULT_ALLOW_LIST[type].join(', ')})`);
  return sniffed;
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

function fetchError(e: unknown, signal: AbortSignal): UpstreamError {
  if (e instanceof UpstreamError) return e;
  if (signal.aborted) return new UpstreamError('transient', 'download: the result did not arrive within the download deadline');
  const message = (e as Error)?.message ?? String(e);
  // URL policy refusals are final: the provider pointed us somewhere we never go.
  if (e instanceof MediaProblem && !/could not be fetched|timed out|connection/i.test(message)) return new UpstreamError('unusable', `download refused: ${message}`);
  return new UpstreamError('transient', `download: ${message}`);
}

/** Closes the connections result downloads keep for the next download (a worker's shutdown). */
export const closeIdleDownloads = (): void => idleDownloadClients.closeAll();
