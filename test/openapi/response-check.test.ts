// The e2e suites' OpenAPI response check catches drift: an undocumented status, a missing
// required header, an undocumented service header and a body the schema refuses.
import { createResponseChecker } from '../e2e/support/openapi-check';

const headers = (h: Record<string, string>) => new Headers({ 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r1', ...h });
const rl = { ratelimit: '"per-key"; r=5; t=30', 'ratelimit-policy': '"per-key"; q=120; w=60' };

describe('OpenAPI response check', () => {
  const { check } = createResponseChecker();

  test('accepts documented responses', () => {
    expect(check({ method: 'GET', path: '/api/video/tasks/tsk_1', status: 200, headers: headers(rl), body: { status: 'processing', progress: 10, type: 'video' } })).toEqual([]);
    expect(check({ method: 'GET', path: '/api/balance', status: 429, headers: headers({ ...rl, 'retry-after': '12' }), body: { error: 'slow down', code: 'rate_limited' } })).toEqual([]);
    expect(check({ method: 'GET', path: '/files/results/tsk_1/0.png', status: 200, headers: new Headers({ 'content-type': 'image/png', 'x-request-id': 'r', 'accept-ranges': 'bytes', 'cache-control': 'public', 'content-length': '3' }), body: null })).toEqual([]);
  });

  test('refuses drift in status, headers and body', () => {
    expect(check({ method: 'GET', path: '/api/balance', status: 418, headers: headers(rl), body: {} })).toEqual([expect.stringContaining('status not documented')]);
    expect(check({ method: 'GET', path: '/api/balance', status: 429, headers: headers(rl), body: { error: 'x', code: 'rate_limited' } })).toEqual([expect.stringContaining('required header retry-after missing')]);
    expect(check({ method: 'GET', path: '/api/balance', status: 200, headers: headers({ ...rl, 'retry-after': '3' }), body: { balanceCents: 1, topUpUrl: 'u' } })).toEqual([expect.stringContaining('retry-after sent but not documented')]);
    expect(check({ method: 'GET', path: '/api/video/tasks/t', status: 200, headers: headers(rl), body: { status: 'done', type: 'video' } })).toEqual([expect.stringContaining('does not match')]);
    expect(check({ method: 'GET', path: '/api/video/tasks/t', status: 404, headers: headers(rl), body: { error: 'x', code: 'rate_limited' } })).toEqual([expect.stringContaining('does not match')]);
    expect(check({ method: 'POST', path: '/api/nothing', status: 404, headers: headers({}), body: {} })).toEqual([expect.stringContaining('operation not in the document')]);
  });
});
