// Data URIs of a streamed body decoded straight into storage: the stored bytes, the notes the
// checks read (size, validity, first bytes, digest) and what is left in storage, however the
// text is split, for valid and hostile data.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { FsStorageDriver } from '@mediagen/storage';
import { base64DecodedBytes, MAX_INLINE_FILE_BYTES, MAX_INLINE_FILES } from '@mediagen/catalog';
import { InlineStager } from '../src/middleware/inline-staging';
import { JsonStreamParser } from '../src/middleware/json-stream';

let dir: string;
let storage: FsStorageDriver;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'staging-'));
  storage = new FsStorageDriver(dir);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Files under the storage root, sidecars and temporary files included. */
const everything = (): string[] => (fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()) : []);

function png(size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 8; i < size; i++) b[i] = (i * 131) & 0xff;
  Buffer.from('\x89PNG\r\n\x1a\n', 'latin1').copy(b, 0);
  return b;
}

async function stage(text: string, piece: number, divertFrom = 100) {
  const stager = new InlineStager(storage);
  const parser = new JsonStreamParser({ divertFrom, divert: stager.divert });
  for (let i = 0; i < text.length; i += piece) {
    parser.write(text.slice(i, i + piece));
    const wait = stager.backpressure();
    if (wait) await wait;
  }
  const body = parser.end() as Record<string, unknown>;
  await stager.settle();
  return { stager, body };
}

describe('InlineStager', () => {
  it.each([1, 3, 4, 5, 7, 64, 1000, 65_536])('stores the decoded bytes of a data URI split every %i characters, escapes resolved', async (piece) => {
    const bytes = png(5000 + piece);
    const uri = `data:image/png;base64,${bytes.toString('base64')}`;
    // `\/` is how some encoders write `/`: the same string to JSON.
    const text = `{"prompt":"p","images":["${uri.replace(/\//g, '\\/')}"]}`;
    const { stager, body } = await stage(text, piece);
    const token = (body.images as string[])[0];
    expect(token).toMatch(/^staged-inline:/);
    const f = stager.files.get(token)!;
    expect(f).toMatchObject({ declaredMime: 'image/png', validBase64: true, inlineBytes: bytes.length, bytes: bytes.length });
    expect(f.head.equals(bytes.subarray(0, 64))).toBe(true);
    expect(f.sha256).toBe(createHash('sha256').update(uri).digest('hex'));
    expect(f.key).toMatch(/^inputs\/[0-9a-f]{32}\/0\.png$/);
    expect(fs.readFileSync(path.join(dir, f.key!)).equals(bytes)).toBe(true);
    await stager.discard();
    expect(everything()).toEqual([]);
  });

  it('keeps the files handed to a task and deletes the others', async () => {
    const a = `data:image/png;base64,${png(3000).toString('base64')}`;
    const { stager, body } = await stage(JSON.stringify({ first_frame: a, last_frame: a, media: [{ type: 'image', url: a }] }), 4096);
    const keys = [body.first_frame, body.last_frame, (body.media as { url: string }[])[0].url].map((t) => stager.files.get(t as string)!.key!);
    expect(new Set(keys).size).toBe(3);
    stager.keep(keys[1]);
    await stager.discard();
    expect(everything().filter((f) => !path.basename(f).startsWith('.'))).toEqual([keys[1]]);
  });

  it('writes at most as many files as a request may carry, however many data URIs the body repeats', async () => {
    const a = `data:image/png;base64,${png(3000).toString('base64')}`;
    const { stager } = await stage(JSON.stringify({ media: Array.from({ length: 14 }, () => ({ type: 'image', url: a })) }), 4096);
    const entries = [...stager.files.values()];
    expect(entries).toHaveLength(14);
    expect(entries.filter((e) => e.key !== null)).toHaveLength(MAX_INLINE_FILES);
    expect(entries.every((e) => e.validBase64 && e.inlineBytes === 3000)).toBe(true);
    expect(everything().filter((f) => !path.basename(f).startsWith('.'))).toHaveLength(MAX_INLINE_FILES);
    await stager.discard();
    expect(everything()).toEqual([]);
  });

  it('leaves strings elsewhere, other types and short data URIs as they are', async () => {
    const long = `data:image/png;base64,${png(3000).toString('base64')}`;
    const body = { prompt: long, images: ['data:image/png;base64,iVBORw0KGgo=', 'https://example.com/a.png', long.replace('image/png', 'audio/mpeg'), long.replace(';base64', '')], media: [{ type: 'image', note: long }] };
    const { stager, body: got } = await stage(JSON.stringify(body), 512);
    expect(got).toEqual(body);
    expect(stager.files.size).toBe(0);
    expect(everything()).toEqual([]);
  });

  it.each([
    ['a character outside the alphabet', (b: string) => `${b.slice(0, 2000)}*${b.slice(2001)}`],
    ['a line break', (b: string) => `${b.slice(0, 2000)}\\n${b.slice(2000)}`],
    ['padding in the middle', (b: string) => `${b.slice(0, 2000)}=${b.slice(2001)}`],
    ['three padding characters', (b: string) => `${b}AA===`],
    ['a length of 4n+1', (b: string) => `${b}A`],
    ['a non-ASCII character', (b: string) => `${b.slice(0, 3000)}é${b.slice(3001)}`],
  ])('notes %s as invalid, abandons the partial write and leaves nothing in storage', async (_name, spoil) => {
    const b64 = png(6000).toString('base64');
    const data = spoil(b64);
    const { stager, body } = await stage(`{"images":["data:image/png;base64,${data}"]}`, 700);
    const f = stager.files.get((body.images as string[])[0])!;
    expect(f.validBase64).toBe(false);
    expect(f.key).toBeNull();
    const plain = JSON.parse(`"${data}"`) as string;
    expect(f.inlineBytes).toBe(base64DecodedBytes(plain)); // the size the catalog reads from the text
    expect(everything()).toEqual([]);
  });

  it('stops writing a file over the per-file limit at the limit and leaves nothing', async () => {
    const bytes = png(MAX_INLINE_FILE_BYTES + 4);
    const text = `{"images":["data:image/png;base64,${bytes.toString('base64')}"]}`;
    const { stager, body } = await stage(text, 65_536, 65_536);
    const f = stager.files.get((body.images as string[])[0])!;
    expect(f.inlineBytes).toBe(MAX_INLINE_FILE_BYTES + 4);
    expect(f.key).toBeNull();
    expect(everything()).toEqual([]);
  });

  it('discards what a body cut short had written', async () => {
    const stager = new InlineStager(storage);
    const parser = new JsonStreamParser({ divertFrom: 100, divert: stager.divert });
    parser.write(`{"images":["data:image/png;base64,${png(3_000_000).toString('base64').slice(0, 2_000_000)}`);
    expect(() => parser.end()).toThrow();
    await stager.discard();
    expect(everything()).toEqual([]);
  });
});
