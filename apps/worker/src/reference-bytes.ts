// The bytes of a task's reference file, for adapters that send references inline (Gemini). Our own
// files (inline uploads, snapshots) are read from storage; any other URL goes through the media URL
// policy (packages/media safeFetch: https, public addresses, pinned DNS), capped in size.
import type { MediaRef } from '@mediagen/catalog';
import { safeFetch } from '@mediagen/media';
import { UpstreamError } from '@mediagen/providers';
import type { WorkerContext } from './context';

/** Inline references are at most 10 MB; URL ones were measured under the media byte budget. */
const MAX_REFERENCE_BYTES = 32 * 1024 * 1024;

async function readCapped(stream: NodeJS.ReadableStream, what: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const c of stream as AsyncIterable<Buffer>) {
    n += c.length;
    if (n > MAX_REFERENCE_BYTES) {
      (stream as unknown as { destroy?: () => void }).destroy?.();
      throw new UpstreamError('failed', `${what} is larger than ${MAX_REFERENCE_BYTES} bytes`);
    }
    parts.push(Buffer.from(c));
  }
  return Buffer.concat(parts);
}

export function referenceLoader(ctx: Pick<WorkerContext, 'config' | 'storage' | 'download'>) {
  const ownPrefix = `${ctx.config.PUBLIC_BASE_URL}/files/`;
  return async (ref: MediaRef): Promise<Buffer> => {
    if (ref.url.startsWith(ownPrefix)) {
      const key = decodeURIComponent(ref.url.slice(ownPrefix.length).split('?')[0]);
      return readCapped(ctx.storage.createReadStream(key), `reference ${ref.path}`);
    }
    const signal = AbortSignal.timeout(ctx.config.MEDIA_TIMEOUT_MS * 4);
    const { res } = await safeFetch(ref.url, { allowPrivate: ctx.download.allowPrivate, maxRedirects: 3 }, { signal });
    if (res.statusCode !== 200) {
      res.destroy();
      throw new UpstreamError('transient', `reference ${ref.path}: HTTP ${res.statusCode}`);
    }
    return readCapped(res, `reference ${ref.path}`);
  };
}
