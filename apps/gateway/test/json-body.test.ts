// jsonBody must accept and refuse exactly what express.json({ strict: false }) does.
import express from 'express';
import request from 'supertest';
import { gzipSync } from 'node:zlib';
import { jsonBody, LARGE_BODY_BYTES } from '../src/middleware/json-body';

function app(limit = 1024 * 1024) {
  const a = express();
  a.post('/', ...jsonBody(limit), (req, res) => res.json({ body: req.body === undefined ? '(undefined)' : req.body }));
  a.use((err: { type?: string; status?: number }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(err.status ?? 500).json({ type: err.type });
  });
  return a;
}

// Bytes as given: superagent would otherwise JSON-encode a Buffer sent as application/json.
const raw = (b: unknown) => b as string;
const send = (body: string | Buffer, type = 'application/json', a = app()) => request(a).post('/').set('Content-Type', type).serialize(raw).send(body);

describe('jsonBody', () => {
  it('parses objects and, as strict: false allows, any JSON value', async () => {
    expect((await send('{"a":[1,"é"]}')).body).toEqual({ body: { a: [1, 'é'] } });
    expect((await send('"text"')).body).toEqual({ body: 'text' });
    expect((await send('42', 'application/json; charset=utf-8')).body).toEqual({ body: 42 });
  });

  it('reads an empty body as {} and drops a leading BOM', async () => {
    expect((await send('')).body).toEqual({ body: {} });
    expect((await send(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]))).body).toEqual({ body: { a: 1 } });
  });

  it('refuses bad JSON, bodies over the limit and non-UTF charsets with the same error types', async () => {
    const bad = await send('{"a":');
    expect([bad.status, bad.body.type]).toEqual([400, 'entity.parse.failed']);
    const big = await send(JSON.stringify({ s: 'x'.repeat(2000) }), 'application/json', app(1000));
    expect([big.status, big.body.type]).toEqual([413, 'entity.too.large']);
    const latin = await send('{}', 'application/json; charset=latin1');
    expect([latin.status, latin.body.type]).toEqual([415, 'charset.unsupported']);
  });

  it('refuses compressed bodies before inflating them, and takes other UTF charsets like express.json', async () => {
    const gz = await request(app()).post('/').set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').serialize(raw).send(gzipSync('{"z":true}'));
    expect([gz.status, gz.body.type]).toEqual([415, 'encoding.unsupported']);
    const utf16 = await send(Buffer.from('{"u":"ü"}', 'utf16le'), 'application/json; charset=utf-16le');
    expect(utf16.body).toEqual({ body: { u: 'ü' } });
  });

  it('parses a large body (the gated path)', async () => {
    const s = 'A'.repeat(LARGE_BODY_BYTES);
    const res = await send(JSON.stringify({ s }), 'application/json', app(LARGE_BODY_BYTES * 2));
    expect(res.status).toBe(200);
    expect(res.body.body.s.length).toBe(LARGE_BODY_BYTES);
  });
});
