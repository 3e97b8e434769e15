// Result files far larger than memory are served by range straight from storage.
// A sparse 5 GiB file (no disk used) puts ranges past the 32-bit offsets a player reaches when it
// seeks near the end of a long video; the bytes that come back are the bytes at those offsets.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import request from 'supertest';
import { createStorage } from '@mediagen/storage';
import { createFilesRouter } from '../src/routes/files.routes';

const GiB = 1024 ** 3;
const SIZE = 5 * GiB + 123;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-large-files-'));
const storage = createStorage({ DATA_DIR: dir });
const app = express().use('/files', createFilesRouter(storage));
const KEY = 'results/big/0.mp4';
/** Markers at offsets a 32-bit byte position cannot name. */
const MARKS: [number, Buffer][] = [
  [4 * GiB + 7, Buffer.from('past-4GiB')],
  [SIZE - 8, Buffer.from('the-end!')],
];

beforeAll(async () => {
  await storage.put(KEY, Buffer.from('\0\0\0\x18ftypisom'), 'video/mp4');
  const file = path.join(dir, 'files', KEY);
  fs.truncateSync(file, SIZE);
  const fd = fs.openSync(file, 'r+');
  for (const [at, b] of MARKS) fs.writeSync(fd, b, 0, b.length, at);
  fs.closeSync(fd);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const binary = (r: request.Test) =>
  r.buffer(true).parse((res, cb) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => cb(null, Buffer.concat(chunks)));
  });

it('answers HEAD with the full size of a 5 GiB file', async () => {
  const res = await request(app).head(`/files/${KEY}`);
  expect(res.status).toBe(200);
  expect(res.headers['content-length']).toBe(String(SIZE));
});

it.each(MARKS)('serves the range at offset %d exactly', async (at, mark) => {
  const res = await binary(request(app).get(`/files/${KEY}`).set('Range', `bytes=${at}-${at + mark.length - 1}`));
  expect(res.status).toBe(206);
  expect(res.headers['content-range']).toBe(`bytes ${at}-${at + mark.length - 1}/${SIZE}`);
  expect(res.headers['content-length']).toBe(String(mark.length));
  expect((res.body as Buffer).equals(mark)).toBe(true);
});

it('serves a suffix range of the last bytes', async () => {
  const res = await binary(request(app).get(`/files/${KEY}`).set('Range', 'bytes=-8'));
  expect(res.status).toBe(206);
  expect(res.headers['content-range']).toBe(`bytes ${SIZE - 8}-${SIZE - 1}/${SIZE}`);
  expect((res.body as Buffer).toString()).toBe('the-end!');
});

it('serves an 8 MiB range from the middle: zeros around the marker, in place', async () => {
  const start = 4 * GiB;
  const res = await binary(request(app).get(`/files/${KEY}`).set('Range', `bytes=${start}-${start + 8 * 1024 * 1024 - 1}`));
  expect(res.status).toBe(206);
  const body = res.body as Buffer;
  expect(body.length).toBe(8 * 1024 * 1024);
  expect(body.subarray(7, 7 + 9).toString()).toBe('past-4GiB');
  expect(body.subarray(16).every((b) => b === 0)).toBe(true);
});
