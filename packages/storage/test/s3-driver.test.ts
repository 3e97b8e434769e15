// The S3 driver against a real S3-compatible server (s3rver on 127.0.0.1, a random port, its own
// temporary directory): the same behaviour the filesystem driver promises, plus S3's own cases.
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createStorage, isValidKey, StorageDriver } from '../src';
import { S3StorageDriver } from '../src/s3';
import { LocalS3, startLocalS3 } from './local-s3';

const readAll = async (s: NodeJS.ReadableStream): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const c of s as Readable) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
};

/** `total` bytes in `chunk`-sized pieces, produced lazily like a download would. */
function chunkedStream(data: Buffer, chunk = 64 * 1024): Readable {
  let at = 0;
  return new Readable({
    read() {
      if (at >= data.length) return void this.push(null);
      this.push(data.subarray(at, (at += chunk)));
    },
  });
}

/** Sends `before` bytes, then fails like a dropped upstream connection. */
function brokenStream(before: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= before) return void this.destroy(new Error('connection reset'));
      const n = Math.min(64 * 1024, before - sent);
      sent += n;
      this.push(Buffer.alloc(n, 7));
    },
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('S3 storage (s3rver)', () => {
  let s3: LocalS3;
  let storage: StorageDriver;

  beforeAll(async () => {
    s3 = await startLocalS3();
    storage = createStorage({ DATA_DIR: '/nonexistent-not-used', ...s3.settings });
  });
  afterAll(() => s3?.stop());

  it('createStorage picks the S3 driver when STORAGE_DRIVER=s3', () => {
    expect(storage).toBeInstanceOf(S3StorageDriver);
  });

  it('stores a buffer with its content type and reads it back whole and by range', async () => {
    const data = Buffer.from('0123456789');
    expect(await storage.put('results/t1/0.png', data, 'image/png')).toEqual({ key: 'results/t1/0.png', bytes: 10 });
    expect(await storage.stat('results/t1/0.png')).toEqual({ bytes: 10, contentType: 'image/png' });
    expect((await readAll(storage.createReadStream('results/t1/0.png'))).toString()).toBe('0123456789');
    expect((await readAll(storage.createReadStream('results/t1/0.png', { start: 2, end: 4 }))).toString()).toBe('234');
    expect((await readAll(storage.createReadStream('results/t1/0.png', { start: 9, end: 9 }))).toString()).toBe('9');
  });

  it('stores a stream and replaces an earlier file under the same key', async () => {
    await storage.put('a/b.mp4', Buffer.from('old'), 'video/mp4');
    const r = await storage.put('a/b.mp4', Readable.from([Buffer.from('new '), Buffer.from('bytes')]), 'video/mp4');
    expect(r).toEqual({ key: 'a/b.mp4', bytes: 9 });
    expect(await storage.stat('a/b.mp4')).toEqual({ bytes: 9, contentType: 'video/mp4' });
    expect((await readAll(storage.createReadStream('a/b.mp4'))).toString()).toBe('new bytes');
  });

  it('streams a put of several MB as a multipart upload and reads ranges across part boundaries', async () => {
    const data = randomBytes(12 * 1024 * 1024 + 12345); // three 5 MiB parts, the last one short
    const r = await storage.put('results/big/0.mp4', chunkedStream(data), 'video/mp4');
    expect(r.bytes).toBe(data.length);
    expect(await storage.stat('results/big/0.mp4')).toEqual({ bytes: data.length, contentType: 'video/mp4' });
    expect(sha(await readAll(storage.createReadStream('results/big/0.mp4')))).toBe(sha(data));
    const boundary = 5 * 1024 * 1024;
    const slice = await readAll(storage.createReadStream('results/big/0.mp4', { start: boundary - 100, end: boundary + 99 }));
    expect(Buffer.compare(slice, data.subarray(boundary - 100, boundary + 100))).toBe(0);
  });

  it('a failed stream leaves no file under the key, whether it failed in the first part or later', async () => {
    await expect(storage.put('x/small.png', brokenStream(1000), 'image/png')).rejects.toThrow('connection reset');
    expect(await storage.stat('x/small.png')).toBeNull();
    // Past the first 5 MiB part: a multipart upload was started and must be aborted, not completed.
    await expect(storage.put('x/large.mp4', brokenStream(6 * 1024 * 1024), 'video/mp4')).rejects.toThrow('connection reset');
    expect(await storage.stat('x/large.mp4')).toBeNull();
  });

  it('a failed replacement keeps the earlier complete file', async () => {
    await storage.put('x/kept.png', Buffer.from('complete'), 'image/png');
    await expect(storage.put('x/kept.png', brokenStream(100), 'image/png')).rejects.toThrow('connection reset');
    expect((await readAll(storage.createReadStream('x/kept.png'))).toString()).toBe('complete');
  });

  it('missing files stat as null, read as a stream error, and delete is idempotent', async () => {
    expect(await storage.stat('nope/0.png')).toBeNull();
    await expect(readAll(storage.createReadStream('nope/0.png'))).rejects.toMatchObject({ name: 'NoSuchKey' });
    await storage.put('d/0.png', Buffer.from('x'), 'image/png');
    await storage.delete('d/0.png');
    await storage.delete('d/0.png');
    expect(await storage.stat('d/0.png')).toBeNull();
  });

  it('an empty file keeps its content type', async () => {
    await storage.put('e/empty.bin', Buffer.alloc(0), 'application/octet-stream');
    expect(await storage.stat('e/empty.bin')).toEqual({ bytes: 0, contentType: 'application/octet-stream' });
  });

  it('refuses the same invalid keys as the filesystem driver, before any request', async () => {
    for (const bad of ['../etc/passwd', 'a/../../b', '/abs', 'a//b', '.hidden', 'a/.x.meta.json', 'a\\b', '', 'a/./b']) {
      expect(isValidKey(bad)).toBe(false);
      await expect(storage.stat(bad)).rejects.toThrow('invalid storage key');
      await expect(storage.put(bad, Buffer.from('x'), 'image/png')).rejects.toThrow('invalid storage key');
      await expect(storage.delete(bad)).rejects.toThrow('invalid storage key');
      expect(() => storage.createReadStream(bad)).toThrow('invalid storage key');
    }
  });

  it('keeps every object under S3_PREFIX, so deployments can share a bucket', async () => {
    const prefixed = createStorage({ DATA_DIR: '/unused', ...s3.settings, S3_PREFIX: 'deployments/eu/' });
    await prefixed.put('results/p1/0.png', Buffer.from('p'), 'image/png');
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: 'deployments/eu/results/p1/0.png' }));
    expect(head.ContentLength).toBe(1);
    expect(await prefixed.stat('results/p1/0.png')).toEqual({ bytes: 1, contentType: 'image/png' });
    // The unprefixed driver does not see it under the bare key.
    expect(await storage.stat('results/p1/0.png')).toBeNull();
  });

  it('a reader that stops early gives its connection back', async () => {
    // One socket only: if the abandoned GET kept it, the stat below would wait forever.
    const client = new S3Client({
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.settings.S3_ACCESS_KEY_ID, secretAccessKey: s3.settings.S3_SECRET_ACCESS_KEY },
      requestHandler: { httpAgent: { maxSockets: 1 } },
    });
    try {
      const one = new S3StorageDriver(client, { bucket: s3.bucket });
      const stream = one.createReadStream('results/big/0.mp4') as Readable;
      await new Promise<void>((resolve, reject) => {
        stream.once('data', () => resolve());
        stream.once('error', reject);
      });
      stream.destroy();
      await expect(one.stat('results/t1/0.png')).resolves.toEqual({ bytes: 10, contentType: 'image/png' });
    } finally {
      client.destroy();
    }
  }, 15_000);
});
