// A submit that never reached the upstream (name not found, connection refused, TLS refused before
// the request was written) is `unsent`: the worker moves to the next channel at once, with no risk
// of a double render. Driven through every protocol's real adapter against real sockets. A failure
// after the request may have left (the server read it, then reset the connection) stays transient,
// and a poll's unreachable upstream stays transient too (its render exists; only that channel can
// answer for it).
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { ImageTaskSpec, VideoTaskSpec } from '@mediagen/catalog';
import { createAdapters, parseChannelConfig, type ChannelAdapter, type RenderRequest } from '../src';

const servers: net.Server[] = [];
afterAll(() => servers.forEach((s) => s.close()));
const listen = async (server: net.Server): Promise<number> => {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
};
/** A port where nothing listens. */
async function refusedPort(): Promise<number> {
  const s = net.createServer();
  const port = await listen(s);
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const PROTOCOLS = ['modelark', 'minimax', 'gemini', 'fal', 'replicate', 'http-jobs'] as const;
const upstreamModel: Record<(typeof PROTOCOLS)[number], string> = {
  // Replicate: an image model whose inputs the adapter knows (replicate-image-models.ts); others are refused before sending.
  modelark: 'seedream-4-0-250828', minimax: 'MiniMax-Hailuo-02', gemini: 'gemini-2.5-flash-image', fal: 'fal-ai/flux', replicate: 'google/nano-banana-pro', 'http-jobs': 'sim/image-b-2.5',
};

function adaptersAt(baseUrl: string): Map<string, ChannelAdapter> {
  const config = parseChannelConfig(
    { channels: PROTOCOLS.map((protocol, i) => ({ id: protocol, protocol, baseUrl, apiKey: 'k', costOrder: i, models: protocol === 'minimax' ? { 'video-a-h3': upstreamModel[protocol] } : { 'image-b-2.5': upstreamModel[protocol] }, ...(protocol === 'replicate' ? { webhookSecret: 'whsec_dGVzdA==' } : {}) })) },
    {},
    'test',
    { allowPrivate: true },
  );
  return createAdapters(config);
}

const image: ImageTaskSpec = { type: 'image', model: 'image-b-2.5', prompt: 'a lighthouse', ratio: '16:9', resolution: '1k', images: [] };
const video: VideoTaskSpec = {
  type: 'video', model: 'video-a-h3', prompt: 'a fox in the snow', duration: 5, ratio: '16:9', resolution: '480p',
  tier: null, variant: null, refMode: null, effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null,
};
// MiniMax renders video only; the others are asked for an image.
const requestFor = (protocol: string): RenderRequest => ({
  taskId: 'task-1', attemptId: 'att-1', outputSeconds: protocol === 'minimax' ? 5 : null, references: [], spec: protocol === 'minimax' ? video : image,
});
const request = requestFor('modelark');

async function submitError(adapter: ChannelAdapter) {
  const thrown = await adapter.submit(requestFor(adapter.channel.protocol)).then(() => undefined, (e: unknown) => e);
  expect(thrown).toBeDefined();
  return adapter.classifyError(thrown, 'submit');
}

describe.each([
  ['a name that does not resolve (ENOTFOUND)', async () => 'https://upstream.invalid/v1', /ENOTFOUND/],
  ['a refused connection (ECONNREFUSED)', async () => `http://127.0.0.1:${await refusedPort()}/v1`, /ECONNREFUSED/],
  ['TLS refused before the request (a plain HTTP server on an https URL)', async () => `https://127.0.0.1:${await listen(http.createServer((_q, s) => s.end('{}')))}/v1`, /EPROTO|SSL/],
])('%s', (_what, baseUrl, code) => {
  let adapters: Map<string, ChannelAdapter>;
  beforeAll(async () => (adapters = adaptersAt(await baseUrl())));
  afterAll(() => adapters.forEach((a) => a.close()));

  it.each(PROTOCOLS)('%s: the submit is `unsent`, and says so', async (protocol) => {
    const err = await submitError(adapters.get(protocol)!);
    expect([err.kind, err.message]).toEqual(['unsent', expect.stringMatching(code)]);
    expect(err.message).toMatch(code);
    expect(err.message).toMatch(/never reached the upstream/);
  });

  it('a poll of a render on that upstream stays transient', async () => {
    const adapter = adapters.get('modelark')!;
    const thrown = await adapter.poll('cgt-1', { spec: request.spec, outputSeconds: null }).then(() => undefined, (e: unknown) => e);
    expect(adapter.classifyError(thrown, 'status').kind).toBe('transient');
  });
});

it('a connection reset after the server read the request stays transient (the request may have started a render)', async () => {
  const port = await listen(
    net.createServer((socket) => socket.once('data', () => socket.resetAndDestroy())),
  );
  const adapters = adaptersAt(`http://127.0.0.1:${port}/v1`);
  try {
    for (const protocol of PROTOCOLS) expect([protocol, (await submitError(adapters.get(protocol)!)).kind]).toEqual([protocol, 'transient']);
  } finally {
    adapters.forEach((a) => a.close());
  }
});
