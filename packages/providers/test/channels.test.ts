import { AxiosError, AxiosHeaders } from 'axios';
import { channelsFor, checkAgainstCatalog, classifyUpstreamError, createAdapters, defaultChannelConfig, parseChannelConfig, parseRetryAfter, unservedModels } from '../src';

const cfg = defaultChannelConfig('http://127.0.0.1:4010');
const ids = (model: string, tier: 'official' | 'third-party' | null) => channelsFor(cfg, model, tier).map((c) => c.id);

describe('default channel config', () => {
  it('serves every catalog model from the simulator', () => {
    const models = ['video-a-h3', 'video-b-2.5', 'video-b-2.0', 'video-b-2.0-mini', 'video-c-3.1', 'image-a-5.0', 'image-b-2.5',
      'image-c-2.1', 'image-b-2', 'image-d-3-pro-image-preview', 'image-d-3.1-flash-image-preview', 'image-d-2.5-flash-image'];
    expect(unservedModels(cfg, models)).toEqual([]);
    expect(cfg.channels.every((c) => c.baseUrl.startsWith('http://127.0.0.1:4010/'))).toBe(true);
  });

  it('tries the cheaper channel first for video-b official, and at least two channels for every video-b model', () => {
    expect(ids('video-b-2.5', 'official')).toEqual(['sim-video-b-lowcost', 'sim-video-b-backup', 'sim-video-b-official']);
    expect(ids('video-b-2.5', 'third-party')).toEqual(['sim-video-b-lowcost', 'sim-video-b-backup']);
    expect(ids('video-b-2.0', 'third-party')).toEqual(['sim-video-b-lowcost', 'sim-video-b-backup']);
    expect(ids('video-b-2.0-mini', 'official')).toEqual(['sim-video-b-lowcost', 'sim-video-b-official']);
  });

  it('reports violations on the video-a channel and the image-b/image-d channels only', () => {
    const reporting = cfg.channels.filter((c) => c.reportsViolations).map((c) => c.id).sort();
    expect(reporting).toEqual(['sim-image-b', 'sim-image-d', 'sim-video-a']);
    expect(ids('image-d-2.5-flash-image', null)).toEqual(['sim-image-d']);
  });

  it("serves every model over its real vendor's protocol, and the whole catalog with channels able to serve it", () => {
    const protocolOf = (model: string) => channelsFor(cfg, model, null)[0].protocol;
    expect(protocolOf('video-a-h3')).toBe('minimax');
    expect(['video-b-2.5', 'video-b-2.0', 'video-b-2.0-mini', 'image-a-5.0', 'image-b-2.5', 'image-b-2'].map(protocolOf)).toEqual(Array(6).fill('modelark'));
    expect(['video-c-3.1', 'image-d-3-pro-image-preview', 'image-d-2.5-flash-image'].map(protocolOf)).toEqual(Array(3).fill('gemini'));
    expect(cfg.channels.some((c) => c.protocol === 'http-jobs')).toBe(false);
    const adapters = createAdapters(cfg);
    expect(checkAgainstCatalog(cfg, adapters)).toEqual({ errors: [], unserved: [] });
    for (const a of adapters.values()) a.close();
  });
});

describe('channel config file', () => {
  const raw = { channels: [{ id: 'acme', baseUrl: '${ACME_URL}', apiKey: '${ACME_KEY}', costOrder: 1, models: { 'video-a-h3': 'h3' } }] };

  it('fills ${VARS} from the environment and applies defaults', () => {
    const c = parseChannelConfig(raw, { ACME_URL: 'https://acme.example', ACME_KEY: 'secret' });
    expect(c.channels[0]).toMatchObject({ baseUrl: 'https://acme.example', apiKey: 'secret', reportsViolations: false, tier: null, protocol: 'http-jobs' });
    expect(c.channels[0].timeouts.submitMs).toBe(30_000);
    expect(c.channels[0].poll.maxMs).toBe(60_000);
  });

  it('names missing variables and invalid fields', () => {
    expect(() => parseChannelConfig(raw, {})).toThrow(/ACME_URL, ACME_KEY/);
    expect(() => parseChannelConfig({ channels: [{ ...raw.channels[0], baseUrl: 'x', apiKey: 'k' }] }, {})).toThrow(/channels\.0\.baseUrl/);
    const dup = { channels: [raw.channels[0], raw.channels[0]] };
    expect(() => parseChannelConfig(dup, { ACME_URL: 'https://a.example', ACME_KEY: 'k' })).toThrow(/duplicate channel id acme/);
  });
});

describe('upstream error classification', () => {
  const httpError = (status: number, headers: Record<string, string> = {}, data: unknown = {}) => {
    const err = new AxiosError('fail', 'ERR_BAD_RESPONSE');
    err.response = { status, statusText: '', headers: new AxiosHeaders(headers), config: { headers: new AxiosHeaders() }, data };
    return err;
  };
  const ctx = { reportsViolations: false, action: 'submit' };

  it('treats timeouts, 429 and 5xx as transient, honouring Retry-After', () => {
    expect(classifyUpstreamError(new AxiosError('timeout', 'ECONNABORTED'), ctx).kind).toBe('transient');
    expect(classifyUpstreamError(httpError(429, { 'retry-after': '7' }), ctx)).toMatchObject({ kind: 'transient', retryAfterMs: 7000 });
    expect(classifyUpstreamError(httpError(503), ctx)).toMatchObject({ kind: 'transient', httpStatus: 503 });
    expect(parseRetryAfter(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3000);
  });

  it('gives violation only for reporting channels, and failed for other refusals', () => {
    const policy = httpError(422, {}, { error: { code: 'content_policy' } });
    expect(classifyUpstreamError(policy, { ...ctx, reportsViolations: true }).kind).toBe('violation');
    expect(classifyUpstreamError(policy, ctx).kind).toBe('failed');
    expect(classifyUpstreamError(httpError(401), ctx).kind).toBe('failed');
    expect(classifyUpstreamError(new TypeError('x is undefined'), ctx).kind).toBe('failed');
  });
});

describe('per-protocol channel config', () => {
  const base = { baseUrl: 'https://up.example/v1', apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'h3' } };

  it('carries each protocol its own fields, with their defaults', () => {
    const c = parseChannelConfig({ channels: [{ ...base, id: 'f', protocol: 'fal' }, { ...base, id: 'r', protocol: 'replicate', webhookSecret: 'whsec_abc=' }] }, {});
    expect(c.channels[0]).toMatchObject({ protocol: 'fal', webhookJwksUrl: 'https://rest.alpha.fal.ai/.well-known/jwks.json' });
    expect(c.channels[1]).toMatchObject({ protocol: 'replicate', webhookSecret: 'whsec_abc=' });
  });

  it('names the channel and the field of a bad value, and lists the protocols for an unknown one', () => {
    const bad = { channels: [{ ...base, id: 'fal-main', protocol: 'fal', webhookJwksUrl: 'not a url' }] };
    expect(() => parseChannelConfig(bad, {})).toThrow(/channels\.0\.webhookJwksUrl \(channel fal-main, field webhookJwksUrl\)/);
    const unknown = { channels: [{ ...base, id: 'odd', protocol: 'smoke-signals' }] };
    expect(() => parseChannelConfig(unknown, {})).toThrow(/channel odd.*unknown protocol "smoke-signals" \(one of: modelark, minimax, gemini, fal, replicate/);
  });

  it('refuses http:// base URLs unless private media URLs are allowed', () => {
    const plain = { channels: [{ ...base, id: 'plain', baseUrl: 'http://up.example/v1' }] };
    expect(() => parseChannelConfig(plain, {}, 'x', { allowPrivate: false })).toThrow(/channel plain, field baseUrl: must be https/);
    expect(parseChannelConfig(plain, {}, 'x', { allowPrivate: true }).channels[0].baseUrl).toBe('http://up.example/v1');
  });
});
