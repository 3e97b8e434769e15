// jsonBody must accept and refuse exactly what express.json({ strict: false }) does.
import express from 'express';
import request from 'supertest';
import { gzipSync } from 'node:zlib';
import http from 'node:http';
import { jsonBody, LARGE_BODY_BYTES, STREAM_PARSE_BYTES } from '../src/middleware/json-body';
import { MAX_STRING_CHARS } from '../src/middleware/json-stream';

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

describe('jsonBody on large bodies (parsed as they arrive)', () => {
  const appWith = () => {
    const a = express();
    a.post('/', ...jsonBody(8 * 1024 * 1024), (req, res) => res.json({ n: JSON.stringify(req.body).length, s: (req.body as { s?: string }).s?.slice(0, 3) }));
    a.use((err: { type?: string; status?: number; code?: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => res.status(err.status ?? 500).json({ type: err.type ?? err.code }));
    return a;
  };

  it('parses a large body with a BOM, and a chunked one, as JSON.parse does', async () => {
    const body = JSON.stringify({ s: 'é'.repeat(STREAM_PARSE_BYTES), t: [1, -0.5e3, true, null, { '': 'x' }] });
    const large = await send(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]), 'application/json', appWith());
    expect(large.status).toBe(200);
    expect(large.body).toEqual({ n: body.length, s: 'ééé' });
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const server = appWith().listen(0, () => {
        const port = (server.address() as { port: number }).port;
        const req = http.request({ port, method: 'POST', path: '/', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d));
          res.on('end', () => server.close(() => resolve({ status: res.statusCode!, body: text })));
        });
        req.on('error', reject);
        // Split inside a multi-byte character and inside the string.
        const bytes = Buffer.from(body);
        for (let at = 0; at < bytes.length; at += 1001) req.write(bytes.subarray(at, at + 1001));
        req.end();
      });
    });
    expect(chunked.status).toBe(200);
    expect(JSON.parse(chunked.body)).toEqual({ n: body.length, s: 'ééé' });
  });

  it('keeps the error types for large bodies: bad JSON 400 entity.parse.failed, a NUL 400 entity.nul', async () => {
    const pad = 'x'.repeat(STREAM_PARSE_BYTES);
    const bad = await send(`{"s":"${pad}",`, 'application/json', appWith());
    expect([bad.status, bad.body.type]).toEqual([400, 'entity.parse.failed']);
    const nul = await send(`{"s":"${pad}","t":"a\\u0000b"}`, 'application/json', appWith());
    expect([nul.status, nul.body.type]).toEqual([400, 'entity.nul']);
    const deep = await send(`{"s":"${pad}","t":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, 'application/json', appWith());
    expect([deep.status, deep.body.type]).toEqual([400, 'entity.parse.failed']); // over MAX_DEPTH levels
    const escaped = await send(`{"s":"${pad}","t":"a\\\\u0000b"}`, 'application/json', appWith());
    expect(escaped.status).toBe(200); // a backslash followed by "u0000" is no NUL
    // Malformed after a NUL: malformed wins, as JSON.parse would have thrown first.
    const both = await send(`{"s":"${pad}","t":"a\\u0000b",}`, 'application/json', appWith());
    expect([both.status, both.body.type]).toEqual([400, 'entity.parse.failed']);
  });

  it('refuses a string longer than any field accepts, naming where it is', async () => {
    const a = express();
    a.post('/', ...jsonBody(40 * 1024 * 1024), (_req, res) => res.json({ reached: true }));
    a.use((err: { code?: string; status?: number; message?: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => res.status(err.status ?? 500).json({ code: err.code, message: err.message }));
    const res = await send(JSON.stringify({ images: ['x'.repeat(MAX_STRING_CHARS + 1)] }), 'application/json', a);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.message).toContain('images[0]');
  });
});
