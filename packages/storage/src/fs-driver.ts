// Filesystem storage under one root directory. Each file's content type is kept beside it in a
// dotfile sidecar (`.<name>.meta.json`), which keys can never name (keys.ts forbids dotfiles).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertValidKey } from './keys';
import { sendFile } from './file-sender';
import { isChunkSource, type ByteRange, type ChunkSource, type FileInfo, type StorageDriver, type StoredFile } from './storage-driver';

interface Sidecar {
  contentType: string;
}

export class FsStorageDriver implements StorageDriver {
  private readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  private pathOf(key: string): string {
    assertValidKey(key);
    const p = path.resolve(this.root, key);
    // Belt and braces: the key rules already exclude `..`, but a path outside the root is never served.
    if (!p.startsWith(this.root + path.sep)) throw new Error(`storage key escapes the root: ${key}`);
    return p;
  }

  private static sidecarOf(file: string): string {
    return path.join(path.dirname(file), `.${path.basename(file)}.meta.json`);
  }

  async put(key: string, data: Buffer | NodeJS.ReadableStream | ChunkSource, contentType: string): Promise<StoredFile> {
    let file: string;
    try {
      file = this.pathOf(key);
      await fsp.mkdir(path.dirname(file), { recursive: true });
    } catch (err) {
      // The caller handed the stream over: never leave it (and the socket under it) open.
      if (isChunkSource(data)) data.close();
      else if (!Buffer.isBuffer(data)) (data as Readable).destroy?.();
      throw err;
    }
    // Write to temporary names and rename: a crash or a failed download never leaves a partial file
    // under the real key, and a retried put simply replaces the earlier one.
    const tmp = path.join(path.dirname(file), `.tmp-${randomBytes(6).toString('hex')}`);
    const tmpMeta = `${tmp}.meta`;
    try {
      const writeData = async (): Promise<number> => {
        if (Buffer.isBuffer(data)) {
          await fsp.writeFile(tmp, data);
          return data.length;
        }
        if (isChunkSource(data)) return writeChunks(tmp, data);
        const out = fs.createWriteStream(tmp);
        await pipeline(data as Readable, out);
        return out.bytesWritten;
      };
      // The sidecar is written while the bytes arrive and the size is counted as they are written:
      // each file operation is a thread-pool round trip, and an answers-at-once submit waits for
      // every one (traced: 4-6 ms of a small image's put on a busy machine). Both settle before
      // any cleanup below, so no temporary file is created after its removal. The sidecar is
      // renamed first: a file under its real key always has its type beside it.
      const [bytes, meta] = await Promise.allSettled([writeData(), fsp.writeFile(tmpMeta, JSON.stringify({ contentType } satisfies Sidecar))]);
      if (bytes.status === 'rejected') throw bytes.reason;
      if (meta.status === 'rejected') throw meta.reason;
      const size = bytes.value;
      await fsp.rename(tmpMeta, FsStorageDriver.sidecarOf(file));
      await fsp.rename(tmp, file);
      return { key, bytes: size };
    } catch (err) {
      await Promise.allSettled([fsp.rm(tmp, { force: true }), fsp.rm(tmpMeta, { force: true })]);
      throw err;
    }
  }

  async stat(key: string): Promise<FileInfo | null> {
    const file = this.pathOf(key);
    let bytes: number;
    try {
      const st = await fsp.stat(file);
      if (!st.isFile()) return null;
      bytes = st.size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    let contentType = 'application/octet-stream';
    try {
      const meta = JSON.parse(await fsp.readFile(FsStorageDriver.sidecarOf(file), 'utf8')) as Sidecar;
      if (typeof meta.contentType === 'string' && meta.contentType) contentType = meta.contentType;
    } catch {
      // A file without its sidecar (copied in by hand) is still served, as opaque bytes.
    }
    return { bytes, contentType };
  }

  createReadStream(key: string, range?: ByteRange): NodeJS.ReadableStream {
    const file = this.pathOf(key);
    return range ? fs.createReadStream(file, { start: range.start, end: range.end }) : fs.createReadStream(file);
  }

  sendTo(key: string, range: ByteRange | undefined, dest: NodeJS.WritableStream, done: (err?: Error) => void): void {
    sendFile(this.pathOf(key), range, dest as Writable, done);
  }

  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    await Promise.all([fsp.rm(file, { force: true }), fsp.rm(FsStorageDriver.sidecarOf(file), { force: true })]);
  }
}

/**
 * Writes a chunk source into `file`, one write at a time: a chunk is the source's to reuse as soon
 * as the next is asked for, so it is asked for only once the write is done. No buffer of our own:
 * the memory is the source's few pooled buffers (packages/media pooled-request.ts). Returns the
 * number of bytes written.
 */
async function writeChunks(file: string, source: ChunkSource): Promise<number> {
  let fh: fsp.FileHandle | undefined;
  let size = 0;
  try {
    fh = await fsp.open(file, 'w');
    for (let c = await source.nextChunk(); c; c = await source.nextChunk()) {
      for (let off = 0; off < c.length; ) off += (await fh.write(c, off, c.length - off)).bytesWritten;
      size += c.length;
    }
    return size;
  } finally {
    source.close();
    await fh?.close();
  }
}
