// End to end for shared storage: a result stored through the S3 driver is served by the gateway's
// own /files router with its content type and byte ranges.
import { Readable } from 'node:stream';
import express from 'express';
import request from 'supertest';
import { createStorage, resultKey } from '@mediagen/storage';
import { LocalS3, startLocalS3 } from '@mediagen/storage/testing';
import { createFilesRouter } from '../src/routes/files.routes';

describe('GET /files/<key> from S3 storage', () => {
  let s3: LocalS3;
  let app: express.Express;
  const video = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
  const key = resultKey('task-s3-1', 0, 'video/mp4');

  beforeAll(async () => {
    s3 = await startLocalS3('mediagen-files');
    const storage = createStorage({ DATA_DIR: '/unused', ...s3.settings, S3_PREFIX: 'gw' });
    // Stored the way the worker stores results: streamed, with the upstream's content type.
    await storage.put(key, Readable.from([video.subarray(0, 400), video.subarray(400)]), 'video/mp4');
    app = express().use('/files', createFilesRouter(storage));
  });
  afterAll(() => s3?.stop());

  const binary = (r: request.Test) =>
    r.buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });

  it('serves the whole file with its content type and length', async () => {
    const res = await binary(request(app).get(`/files/${key}`));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('video/mp4');
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['content-length']).toBe('1000');
    expect(Buffer.compare(res.body, video)).toBe(0);
  });

  it('answers a range with 206 and exactly those bytes', async () => {
    const res = await binary(request(app).get(`/files/${key}`).set('Range', 'bytes=100-199'));
    expect(res.status).toBe(206);
    expect(res.headers['content-type']).toBe('video/mp4');
    expect(res.headers['content-range']).toBe('bytes 100-199/1000');
    expect(res.headers['content-length']).toBe('100');
    expect(Buffer.compare(res.body, video.subarray(100, 200))).toBe(0);

    const tail = await binary(request(app).get(`/files/${key}`).set('Range', 'bytes=-10'));
    expect(tail.status).toBe(206);
    expect(tail.headers['content-range']).toBe('bytes 990-999/1000');
    expect(Buffer.compare(tail.body, video.subarray(990))).toBe(0);
  });

  it('answers 416 past the end, and HEAD without a body', async () => {
    const past = await request(app).get(`/files/${key}`).set('Range', 'bytes=5000-');
    expect(past.status).toBe(416);
    expect(past.headers['content-range']).toBe('bytes */1000');
    const head = await request(app).head(`/files/${key}`);
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('1000');
  });

  it('answers 404 JSON for a missing key and for an invalid one', async () => {
    const missing = await request(app).get('/files/results/nope/0.mp4');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'not_found' });
    const invalid = await request(app).get('/files/results/..%2F..%2Fsecret');
    expect(invalid.status).toBe(404);
  });
});
