import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import request from 'supertest';
import { createStorage } from '@mediagen/storage';
import { createFilesRouter } from '../src/routes/files.routes';

describe('GET /files/<key>', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-files-'));
  const storage = createStorage({ DATA_DIR: dir });
  const app = express().use('/files', createFilesRouter(storage));
  const bytes = Buffer.from(Array.from({ length: 100 }, (_, i) => i));

  beforeAll(() => storage.put('results/t1/0.mp4', bytes, 'video/mp4'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const binary = (r: request.Test) => r.buffer(true).parse((res, cb) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => cb(null, Buffer.concat(chunks)));
  });

  it('serves the whole file with its content type', async () => {
    const res = await binary(request(app).get('/files/results/t1/0.mp4'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('video/mp4');
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['content-length']).toBe('100');
    expect(Buffer.compare(res.body, bytes)).toBe(0);
  });

  it('serves a byte range with 206 and Content-Range', async () => {
    const res = await binary(request(app).get('/files/results/t1/0.mp4').set('Range', 'bytes=10-19'));
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe('bytes 10-19/100');
    expect(Buffer.compare(res.body, bytes.subarray(10, 20))).toBe(0);
  });

  it('serves open-ended and suffix ranges', async () => {
    const open = await binary(request(app).get('/files/results/t1/0.mp4').set('Range', 'bytes=95-'));
    expect(open.headers['content-range']).toBe('bytes 95-99/100');
    const suffix = await binary(request(app).get('/files/results/t1/0.mp4').set('Range', 'bytes=-3'));
    expect(suffix.status).toBe(206);
    expect([...suffix.body]).toEqual([97, 98, 99]);
  });

  it('answers 416 for a range past the end', async () => {
    const res = await request(app).get('/files/results/t1/0.mp4').set('Range', 'bytes=200-300');
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe('bytes */100');
  });

  it('answers HEAD with headers only', async () => {
    const res = await request(app).head('/files/results/t1/0.mp4');
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe('100');
    expect(res.headers['content-type']).toBe('video/mp4');
  });

  it('answers 404 for missing files, traversal attempts and metadata sidecars', async () => {
    for (const p of ['/files/results/t1/1.mp4', '/files/results/%2e%2e/%2e%2e/etc/passwd', '/files/results/t1/.0.mp4.meta.json', '/files/']) {
      const res = await request(app).get(p);
      expect(res.status).toBe(404);
    }
    const body = (await request(app).get('/files/nope.png')).body;
    expect(body).toEqual({ error: 'File not found', code: 'not_found' });
  });
});
