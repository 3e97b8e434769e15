// A webhook receiver on the developer's machine: in development (NODE_ENV=development, as `npm start`
// sets) callback_url and webhook endpoints may be http:// and local addresses without any other
// setting; elsewhere the refusal says what allows it, and production refuses the setting itself.
import { loadConfig } from '@mediagen/config';
import { AppError } from '@mediagen/errors';
import { parseCallbackUrl, parseImageSubmit } from '../src';

const base = { DATABASE_URL: 'postgresql://x@127.0.0.1/x', REDIS_URL: 'redis://127.0.0.1:6379' };
const refusal = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('did not throw');
};

it('development allows local webhooks by default; test and unset NODE_ENV do not; production refuses the setting', () => {
  expect(loadConfig({ ...base, NODE_ENV: 'development' }).ALLOW_LOCAL_WEBHOOKS).toBe(true);
  expect(loadConfig({ ...base, NODE_ENV: 'development', ALLOW_LOCAL_WEBHOOKS: 'false' }).ALLOW_LOCAL_WEBHOOKS).toBe(false);
  expect(loadConfig({ ...base, NODE_ENV: 'test' }).ALLOW_LOCAL_WEBHOOKS).toBe(false);
  expect(loadConfig({ ...base, NODE_ENV: 'test', ALLOW_PRIVATE_MEDIA_URLS: 'true' }).ALLOW_LOCAL_WEBHOOKS).toBe(true);
  // Reference media stay public-only in development unless asked for.
  expect(loadConfig({ ...base, NODE_ENV: 'development' }).ALLOW_PRIVATE_MEDIA_URLS).toBe(false);
  expect(() =>
    loadConfig({ ...base, NODE_ENV: 'production', ADMIN_TOKEN: 'a'.repeat(32), PUBLIC_BASE_URL: 'https://api.example.com', ALLOW_LOCAL_WEBHOOKS: 'true' }),
  ).toThrow(/ALLOW_LOCAL_WEBHOOKS is for development and tests only; refused in production/);
});

it('with local webhooks a loopback http callback is taken, while private reference media are still refused', () => {
  const opts = { allowPrivateMediaUrls: false, allowLocalWebhooks: true };
  expect(parseCallbackUrl('http://127.0.0.1:8080/hook', opts)).toBe('http://127.0.0.1:8080/hook');
  expect(parseCallbackUrl('http://localhost:8080/hook', opts, 'url')).toBe('http://localhost:8080/hook');
  expect(refusal(() => parseImageSubmit({ model: 'image-b-2.5', prompt: 'a fox', images: ['http://127.0.0.1/a.png'] }, opts)).code).toBe('invalid_media');
});

it('without them, the refusal says what allows a local receiver in development', () => {
  const opts = { allowPrivateMediaUrls: false, allowLocalWebhooks: false };
  const http = refusal(() => parseCallbackUrl('http://127.0.0.1:8080/hook', opts));
  expect(http.message).toMatch(/^callback_url: must be an https URL \(http:\/\/ and local addresses .* accepted in development: NODE_ENV=development, which `npm start` sets, or ALLOW_LOCAL_WEBHOOKS=true; never in production\)$/);
  const local = refusal(() => parseCallbackUrl('https://127.0.0.1:8443/hook', opts, 'url'));
  expect(local.message).toMatch(/^url: URL must point at a public internet host \(http:\/\/ and local addresses .*ALLOW_LOCAL_WEBHOOKS=true/);
  // A URL that is not http(s) at all gets no development hint.
  expect(refusal(() => parseCallbackUrl('ftp://example.com/x', opts)).message).toBe('callback_url: must be an https URL');
});
