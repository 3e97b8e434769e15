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

  it('keeps a type sidecar only when the name does not say the type', async () => {
    const files = (d: string) => fs.readdirSync(path.join(dir, 'files', d)).sort();
    const big = Readable.from([Buffer.alloc(300 * 1024, 1)]); // over the small-write size: the streaming path
    await storage.put('side/0.mp4', Buffer.from('video'), 'video/mp4');
    await storage.put('side/1.mp4', big, 'video/mp4');
    expect(files('side')).toEqual(['0.mp4', '1.mp4']);
    expect(await storage.stat('side/0.mp4')).toEqual({ bytes: 5, contentType: 'video/mp4' });
    expect(await storage.stat('side/1.mp4')).toEqual({ bytes: 300 * 1024, contentType: 'video/mp4' });
    // A type the name does not say (or an unmapped name) keeps its sidecar, small or streamed.
    await storage.put('side/2.bin', Buffer.from('x'), 'application/x-thing');
    await storage.put('side/3.png', Readable.from([Buffer.alloc(300 * 1024, 2)]), 'text/html');
    expect(await storage.stat('side/2.bin')).toEqual({ bytes: 1, contentType: 'application/x-thing' });
    expect(await storage.stat('side/3.png')).toEqual({ bytes: 300 * 1024, contentType: 'text/html' });
    expect(files('side')).toContain('.3.png.meta.json');
    // Put again under the same key with the name's own type: the earlier sidecar goes with the bytes.
    await storage.put('side/3.png', Buffer.from('png'), 'image/png');
    expect(await storage.stat('side/3.png')).toEqual({ bytes: 3, contentType: 'image/png' });
    await storage.put('side/2.bin', Buffer.from('y'), 'application/x-thing');
    await storage.put('side/4.webp', Buffer.from('a'), 'text/plain');
    await storage.put('side/4.webp', Readable.from([Buffer.alloc(300 * 1024, 3)]), 'image/webp');
    expect(await storage.stat('side/4.webp')).toEqual({ bytes: 300 * 1024, contentType: 'image/webp' });
    expect(files('side')).toEqual(['.2.bin.meta.json', '0.mp4', '1.mp4', '2.bin', '3.png', '4.webp']);
  });

  it('reads the sidecar of a file stored before 2026-12-02, and serves a bare unmapped file as opaque bytes', async () => {
    const d = path.join(dir, 'files', 'old');
    fs.mkdirSync(d, { recursive: true });
    // Its sidecar wins over the name: a type the name would not give.
    fs.writeFileSync(path.join(d, '0.mp4'), 'v');
    fs.writeFileSync(path.join(d, '.0.mp4.meta.json'), JSON.stringify({ contentType: 'video/mp4; codecs="avc1.64001f"' }));
    fs.writeFileSync(path.join(d, 'a.dat'), 'z');
    expect(await storage.stat('old/0.mp4')).toEqual({ bytes: 1, contentType: 'video/mp4; codecs="avc1.64001f"' });
    expect(await storage.stat('old/a.dat')).toEqual({ bytes: 1, contentType: 'application/octet-stream' });
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
