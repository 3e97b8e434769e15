// S3 (and S3-compatible) storage, for deployments whose gateways and workers share no disk. The
// object's own Content-Type is the metadata, so there are no sidecars; keys are validated exactly
// like the filesystem driver's, because they are also read back from URL paths anyone can send.
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { assertValidKey } from './keys';
import { isChunkSource, type ByteRange, type ChunkSource, type FileInfo, type StorageDriver, type StoredFile } from './storage-driver';

export interface S3DriverOptions {
  bucket: string;
  /** Prepended to every key (`deployments/eu/` -> `deployments/eu/results/...`). */
  prefix?: string;
  /**
   * Multipart part size for streamed puts. Each streamed put holds up to (queueSize + 1) parts in
   * memory, and a worker runs up to WORKER_CONCURRENCY of them, so keep it near S3's 5 MiB minimum.
   */
  partSize?: number;
  queueSize?: number;
}

const MIN_PART_SIZE = 5 * 1024 * 1024;

/** HeadObject answers 404 without a body, so the SDK reports it as `NotFound`; GetObject as `NoSuchKey`. */
function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

export class S3StorageDriver implements StorageDriver {
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly partSize: number;
  private readonly queueSize: number;

  constructor(
    private readonly client: S3Client,
    options: S3DriverOptions,
  ) {
    this.bucket = options.bucket;
    const p = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    this.prefix = p ? `${p}/` : '';
    this.partSize = Math.max(MIN_PART_SIZE, options.partSize ?? MIN_PART_SIZE);
    this.queueSize = options.queueSize ?? 2;
  }

  private objectKey(key: string): string {
    assertValidKey(key);
    return this.prefix + key;
  }

  async put(key: string, data: Buffer | NodeJS.ReadableStream | ChunkSource, contentType: string): Promise<StoredFile> {
    let Key: string;
    try {
      Key = this.objectKey(key);
    } catch (err) {
      // The caller handed the source over: never leave it (and the socket under it) open.
      if (isChunkSource(data)) data.close();
      else if (!Buffer.isBuffer(data)) (data as Readable).destroy?.();
      throw err;
    }
    if (Buffer.isBuffer(data)) {
      // One PUT: S3 makes the object visible only once it is complete, and replaces an older one whole.
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key, Body: data, ContentType: contentType, ContentLength: data.length }),
      );
      return { key, bytes: data.length };
    }
    // Streams have no known length: lib-storage sends one PUT when the stream fits in one part and a
    // multipart upload otherwise. A multipart object appears only on CompleteMultipartUpload, and a
    // failed stream aborts the upload (leavePartsOnError is false), so nothing partial is ever
    // visible under the key and no orphaned parts are left to pay for.
    let bytes = 0;
    let sourceError: unknown;
    const source = isChunkSource(data) ? copiedChunks(data) : (data as Readable);
    const counted = Readable.from(
      (async function* count() {
        try {
          for await (const chunk of source) {
            const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
            bytes += b.length;
            yield b;
          }
        } catch (err) {
          sourceError = err;
          throw err;
        }
      })(),
      { objectMode: false },
    );
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key, Body: counted, ContentType: contentType },
      partSize: this.partSize,
      queueSize: this.queueSize,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      // Stop reading a source we no longer need (e.g. an upstream download) instead of leaving it paused.
      counted.destroy();
      source.destroy?.();
      // When the source failed, that is the cause; the abort that follows may fail too (a server
      // without AbortMultipartUpload) and must not hide it. Parts left by a failed abort are
      // removed by the bucket's lifecycle rule (docs/operations.md).
      throw sourceError ?? err;
    }
    return { key, bytes };
  }

  async stat(key: string): Promise<FileInfo | null> {
    const Key = this.objectKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key }));
      return { bytes: head.ContentLength ?? 0, contentType: head.ContentType || 'application/octet-stream' };
    } catch (err) {
      // Only a 404 means "no file". A 403 (for a missing key too, when the credentials lack
      // s3:ListBucket) is a configuration problem and surfaces as an error, not as a silent 404.
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  /**
   * The interface hands back a stream at once, while the GET is asynchronous: the object's bytes
   * are piped into a PassThrough when the response arrives, and a failed GET destroys it with the
   * error. A consumer that goes away early (a player seeking, a closed connection) aborts the GET,
   * so no socket of the SDK's pool stays held by an unread body.
   */
  createReadStream(key: string, range?: ByteRange): NodeJS.ReadableStream {
    const Key = this.objectKey(key);
    const out = new PassThrough();
    const abort = new AbortController();
    let finished = false;
    out.once('close', () => {
      if (!finished) abort.abort();
    });
    this.client
      .send(
        new GetObjectCommand({ Bucket: this.bucket, Key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
        { abortSignal: abort.signal },
      )
      .then((res) => pipeline(res.Body as Readable, out))
      .then(
        () => {
          finished = true;
        },
        (err: unknown) => {
          finished = true;
          if (!out.destroyed) out.destroy(err as Error);
        },
      );
    return out;
  }

  async delete(key: string): Promise<void> {
    // S3 answers 204 for a missing key too, which makes delete idempotent as the interface asks.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }
}

/**
 * A chunk source as a stream for lib-storage, which keeps chunks until a part is full: each lent
 * chunk is copied before the next is asked for (a fresh buffer per chunk, as a stream would give).
 */
function copiedChunks(src: ChunkSource): Readable {
  return Readable.from(
    (async function* copies() {
      try {
        for (let c = await src.nextChunk(); c; c = await src.nextChunk()) yield Buffer.from(c);
      } finally {
        src.close();
      }
    })(),
    { objectMode: false },
  );
}
