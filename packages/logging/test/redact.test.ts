// The logger every process uses drops credentials by path and inline file data by content, where
// they would otherwise land: request headers, axios errors (request config with the upstream key),
// channel objects, error messages and the message string itself.
import { Writable } from 'node:stream';
import { createLogger } from '../src';

const B64 = Buffer.alloc(600, 7).toString('base64');
const DATA_URI = `data:image/png;base64,${B64}`;

function capture(): { lines: () => string; stream: Writable } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return { lines: () => chunks.join(''), stream };
}

it('redacts keys and authorization headers wherever they are logged', () => {
  const out = capture();
  const log = createLogger('info', { app: 'test' }, out.stream);
  log.info({ req: { headers: { authorization: 'Bearer mg_client_key_1' } } }, 'request');
  log.info({ headers: { Authorization: 'Bearer admin-token-2' } }, 'admin');
  log.info({ channel: { id: 'acme', apiKey: 'upstream-key-3' } }, 'channel');
  log.info({ apiKey: 'upstream-key-4', key: 'mg_client_key_5' }, 'flat');
  const axiosLike = Object.assign(new Error('Request failed with status code 401'), {
    config: { headers: { Authorization: 'Bearer upstream-key-6' }, data: '{"prompt":"x"}' },
    response: { status: 401, config: { headers: { Authorization: 'Bearer upstream-key-6' } } },
  });
  log.error({ err: axiosLike }, 'upstream call failed');
  const text = out.lines();
  for (const secret of ['mg_client_key_1', 'admin-token-2', 'upstream-key-3', 'upstream-key-4', 'mg_client_key_5', 'upstream-key-6'])
    expect(text).not.toContain(secret);
  expect(text).toContain('[redacted]');
  expect(text).toContain('Request failed with status code 401'); // the error itself stays readable
});

it('cuts data: URIs out of fields, nested values, errors and messages', () => {
  const out = capture();
  const log = createLogger('info', { app: 'test' }, out.stream);
  log.info({ body: { images: [DATA_URI], prompt: 'a cat' } }, 'nested');
  log.info({ cause: `could not read ${DATA_URI} (bad header)` }, 'in a sentence');
  log.warn({ err: new Error(`invalid media: ${DATA_URI}`) }, 'error');
  log.info(`message with ${DATA_URI}`);
  const text = out.lines();
  expect(text).not.toContain(B64.slice(0, 40));
  expect(text).toContain('a cat');
  expect(text).toContain('data:image/png;base64,[');
  expect(text.split('\n').filter(Boolean)).toHaveLength(4);
});

it('leaves ordinary lines alone', () => {
  const out = capture();
  const log = createLogger('info', { app: 'test' }, out.stream);
  const fields = { req: { id: 'r1', method: 'GET', url: '/api/video/tasks/abc' }, res: { statusCode: 200 }, accountId: 'acc_1' };
  log.info(fields, 'request completed');
  expect(JSON.parse(out.lines())).toMatchObject({ ...fields, app: 'test', msg: 'request completed' });
});

it('censors what lies past the depth limit instead of passing it through', () => {
  const out = capture();
  const log = createLogger('info', { app: 'test' }, out.stream);
  let deep: Record<string, unknown> = { note: 'plain secret-bearing value sk_live_deep_0001' };
  for (let i = 0; i < 12; i++) deep = { level: deep };
  log.info({ deep }, 'nested');
  expect(out.lines()).not.toContain('sk_live_deep_0001');
  expect(out.lines()).toContain('[redacted: nested too deep]');
});
