// put() from a ChunkSource (result downloads lend pooled buffers, one chunk at a
// time). The fake source below writes every chunk into the same buffer, so a driver that kept a
// chunk after asking for the next would store wrong bytes (the sha256 tells); a source failing
// half-way leaves nothing under the key and no temporary file, and the source is always closed.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createStorage, type ChunkSource, type StorageDriver } from '../src';
import { LocalS3, startLocalS3 } from './local-s3';

const CHUNK = 256 * 1024;
const data = Buffer.alloc(7 * 1024 * 1024 + 333);
for (let i = 0; i < data.length; i += 4) data.writeUInt32LE((i * 2654435761) >>> 0, Math.min(i, data.length - 4));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface FakeSource extends ChunkSource {
  closed: number;
}

/** `bytes` lent in one reused buffer, `chunk` bytes at a time; fails with `failAt` bytes sent when given. */
function reusedBufferSource(bytes: Buffer, failAt?: number, chunk = CHUNK): FakeSource {
  const buf = Buffer.alloc(chunk);
  let at = 0;
  const src: FakeSource = {
    closed: 0,
    async nextChunk() {
      buf.fill(0xee); // the previous chunk is gone
      if (failAt !== undefined && at >= failAt) throw new Error('download: the connection was cut');
      if (at >= bytes.length) return null;
      const n = bytes.copy(buf, 0, at, Math.min(bytes.length, at + chunk));
      at += n;
      await new Promise((r) => setImmediate(r));
      return n === chunk ? buf : buf.subarray(0, n);
    },
    close() {
      src.closed += 1;
    },
  };
  return src;
}

const readAll = async (s: NodeJS.ReadableStream): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const c of s as Readable) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
};

function cases(name: string, setup: () => Promise<{ storage: StorageDriver; leftovers: () => string[]; stop?: () => Promise<void> }>) {
  describe(name, () => {
    let ctx: Awaited<ReturnType<typeof setup>>;
    beforeAll(async () => {
      ctx = await setup();
    });
    afterAll(() => ctx?.stop?.());

    it('stores the bytes of a source that reuses its buffer, whole, and closes it', async () => {
      const src = reusedBufferSource(data);
      expect(await ctx.storage.put('results/c1/0.mp4', src, 'video/mp4')).toEqual({ key: 'results/c1/0.mp4', bytes: data.length });
      expect(src.closed).toBeGreaterThan(0);
      expect(sha(await readAll(ctx.storage.createReadStream('results/c1/0.mp4')))).toBe(sha(data));
      expect(await ctx.storage.stat('results/c1/0.mp4')).toEqual({ bytes: data.length, contentType: 'video/mp4' });
    });

    it('a source failing half-way leaves no file and no temporary behind, and is closed', async () => {
      await ctx.storage.put('results/c2/0.mp4', Buffer.from('earlier'), 'video/mp4');
      const src = reusedBufferSource(data, 6 * 1024 * 1024);
      await expect(ctx.storage.put('results/c2/0.mp4', src, 'video/mp4')).rejects.toThrow('connection was cut');
      expect(src.closed).toBeGreaterThan(0);
      // The earlier complete file stays; nothing partial replaced it.
      expect((await readAll(ctx.storage.createReadStream('results/c2/0.mp4'))).toString()).toBe('earlier');
      const failed = reusedBufferSource(data, 3 * CHUNK);
      await expect(ctx.storage.put('results/c3/0.mp4', failed, 'video/mp4')).rejects.toThrow('connection was cut');
      expect(await ctx.storage.stat('results/c3/0.mp4')).toBeNull();
      expect(ctx.leftovers()).toEqual([]);
    });

    // A small result already downloaded (the fs driver writes it in one go, fs-driver.ts putSmall),
    // and sources whose first chunk is small but that go on: the first chunk is read ahead of the
    // second, so a driver must not keep the lent buffer.
    it('stores a small source whole, one ending later, and one lending small chunks', async () => {
      const small = data.subarray(0, 10_000);
      for (const [key, src, bytes] of [
        ['results/s1/0.png', reusedBufferSource(small), small],
        ['results/s2/0.mp4', reusedBufferSource(data, undefined, 10_000), data],
        ['results/s3/0.mp4', reusedBufferSource(data.subarray(0, 300_000), undefined, 150_000), data.subarray(0, 300_000)],
      ] as const) {
        expect(await ctx.storage.put(key, src, key.endsWith('png') ? 'image/png' : 'video/mp4')).toEqual({ key, bytes: bytes.length });
        expect(src.closed).toBeGreaterThan(0);
        expect(sha(await readAll(ctx.storage.createReadStream(key)))).toBe(sha(bytes));
      }
      expect(await ctx.storage.stat('results/s1/0.png')).toEqual({ bytes: 10_000, contentType: 'image/png' });
      expect(ctx.leftovers()).toEqual([]);
    });

    it('a small source failing after its first chunk leaves nothing and is closed', async () => {
      const src = reusedBufferSource(data.subarray(0, 100_000), 10_000, 10_000);
      await expect(ctx.storage.put('results/s4/0.mp4', src, 'video/mp4')).rejects.toThrow('connection was cut');
      expect(src.closed).toBeGreaterThan(0);
      expect(await ctx.storage.stat('results/s4/0.mp4')).toBeNull();
      expect(ctx.leftovers()).toEqual([]);
    });

    it('closes the source when the write cannot even start', async () => {
      const src = reusedBufferSource(data);
      await expect(ctx.storage.put('../escape.mp4', src, 'video/mp4')).rejects.toThrow('invalid storage key');
      expect(src.closed).toBeGreaterThan(0);
    });
  });
}

cases('filesystem storage', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-chunks-'));
  const storage = createStorage({ DATA_DIR: dir });
  const files = path.join(dir, 'files');
  return {
    storage,
    leftovers: () => (fs.readdirSync(files, { recursive: true }) as string[]).filter((f) => path.basename(f).startsWith('.tmp')),
    stop: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
});

cases('S3 storage (s3rver)', async () => {
  const s3: LocalS3 = await startLocalS3();
  return { storage: createStorage({ DATA_DIR: '/nonexistent-not-used', ...s3.settings }), leftovers: () => [], stop: () => s3.stop() };
});
