// The contract every storage backend implements. The filesystem driver serves one machine; an
// S3-compatible driver (same interface) serves several gateways and workers that share no disk.

export interface StoredFile {
  key: string;
  bytes: number;
}

export interface FileInfo {
  bytes: number;
  contentType: string;
}

/** Inclusive byte range, as HTTP Range uses it. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Bytes lent one chunk at a time, as a result download gives them (packages/media
 * pooled-request.ts): a chunk is valid until the next nextChunk() or close(), after which its
 * buffer is used again, so a driver must be done with it (written, or copied) before asking again.
 */
export interface ChunkSource {
  /** The next bytes, null at the end; rejects when the source failed. */
  nextChunk(): Promise<Buffer | null>;
  /** Stops the source and gives its buffers back (idempotent). */
  close(): void;
}

export const isChunkSource = (d: unknown): d is ChunkSource => typeof (d as ChunkSource | null)?.nextChunk === 'function';

export interface StorageDriver {
  /**
   * Writes the whole file or nothing: readers never see a half-written file under `key`. A stream
   * or chunk source handed over is always finished with: read to the end, or destroyed / closed.
   */
  put(key: string, data: Buffer | NodeJS.ReadableStream | ChunkSource, contentType: string): Promise<StoredFile>;
  /** Null when there is no file under `key`. */
  stat(key: string): Promise<FileInfo | null>;
  createReadStream(key: string, range?: ByteRange): NodeJS.ReadableStream;
  /**
   * Optional, cheaper than createReadStream piped into `dest` (file-sender.ts): writes the file or
   * range into `dest` and ends it; closes the source as soon as `dest` closes early, destroys
   * `dest` when the source fails. `done` is called once.
   */
  sendTo?(key: string, range: ByteRange | undefined, dest: NodeJS.WritableStream, done: (err?: Error) => void): void;
  /** Deleting a missing file is not an error. */
  delete(key: string): Promise<void>;
}
