import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createStorage, isValidKey, publicFileUrl, resultKey } from '../src';

const readAll = async (s: NodeJS.ReadableStream): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const c of s as Readable) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
};

describe('filesystem storage', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-storage-'));
  const storage = createStorage({ DATA_DIR: dir });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('stores a buffer with its content type and reads it back whole and by range', async () => {
    const data = Buffer.from('0123456789');
    expect(await storage.put('results/t1/0.png', data, 'image/png')).toEqual({ key: 'results/t1/0.png', bytes: 10 });
    expect(await storage.stat('results/t1/0.png')).toEqual({ bytes: 10, contentType: 'image/png' });
    expect((await readAll(storage.createReadStream('results/t1/0.png'))).toString()).toBe('0123456789');
    expect((await readAll(storage.createReadStream('results/t1/0.png', { start: 2, end: 4 }))).toString()).toBe('234');
  });

  it('stores a stream and replaces an earlier file under the same key', async () => {
    await storage.put('a/b.mp4', Buffer.from('old'), 'video/mp4');
    const r = await storage.put('a/b.mp4', Readable.from([Buffer.from('new '), Buffer.from('bytes')]), 'video/mp4');
    expect(r.bytes).toBe(9);
    expect((await readAll(storage.createReadStream('a/b.mp4'))).toString()).toBe('new bytes');
    // no temporary files are left behind
    expect(fs.readdirSync(path.join(dir, 'files', 'a')).filter((f) => f.startsWith('.tmp'))).toEqual([]);
  });

  it('a failed stream leaves no file under the key', async () => {
    const broken = new Readable({
      read() {
        this.destroy(new Error('connection reset'));
      },
    });
    await expect(storage.put('x/broken.png', broken, 'image/png')).rejects.toThrow('connection reset');
    expect(await storage.stat('x/broken.png')).toBeNull();
    // The sidecar, written beside the bytes, goes too: no temporary file (data or meta) is left.
    expect(fs.readdirSync(path.join(dir, 'files', 'x'))).toEqual([]);
  });

  it('closes a stream it was handed when the write cannot even start', async () => {
    const stream = Readable.from([Buffer.from('x')]);
    await expect(storage.put('../escape.png', stream, 'image/png')).rejects.toThrow('invalid storage key');
    expect(stream.destroyed).toBe(true);
  });

  it('missing files stat as null and delete is idempotent', async () => {
    expect(await storage.stat('nope/0.png')).toBeNull();
    await storage.put('d/0.png', Buffer.from('x'), 'image/png');
    await storage.delete('d/0.png');
    await storage.delete('d/0.png');
    expect(await storage.stat('d/0.png')).toBeNull();
  });

  it('refuses keys that could leave the root or name metadata', async () => {
    for (const bad of ['../etc/passwd', 'a/../../b', '/abs', 'a//b', '.hidden', 'a/.x.meta.json', 'a\\b', '', 'a/./b']) {
      expect(isValidKey(bad)).toBe(false);
      await expect(storage.stat(bad)).rejects.toThrow('invalid storage key');
    }
    expect(isValidKey('results/0b1c-2/0.png')).toBe(true);
  });

  it('builds result keys and public URLs', () => {
    expect(resultKey('t9', 1, 'video/mp4')).toBe('results/t9/1.mp4');
    expect(publicFileUrl({ PUBLIC_BASE_URL: 'https://api.example.com/' }, 'results/t9/1.mp4')).toBe(
      'https://api.example.com/files/results/t9/1.mp4',
    );
  });
});
