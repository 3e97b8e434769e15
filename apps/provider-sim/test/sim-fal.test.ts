// The simulator's fal queue driven by the real fal adapter: sub-paths, COMPLETED results and their
// errors, each #sim: directive in fal's own signal, cancel, and ED25519-signed webhooks verified
// against the simulator's published JWKS.
import type { AddressInfo } from 'node:net';
import type { VideoTaskSpec } from '@mediagen/catalog';
import { ChannelAdapter, createAdapters, parseChannelConfig, RenderStatus } from '@mediagen/providers';
import { createSimServer } from '../src/sim-server';
import { startCallbackReceiver } from './callback-receiver';
import { eventually } from '../../../test/e2e/support/wait';

let base: string;
let adapters: Map<string, ChannelAdapter>;
let stop: () => Promise<void>;
let hooks: Awaited<ReturnType<typeof startCallbackReceiver>>;

const config = (sim: string) =>
  parseChannelConfig({
    channels: [
      { id: 'fal-a', protocol: 'fal', baseUrl: `${sim}/fal`, apiKey: 'fal-key-a', costOrder: 10, reportsViolations: true, webhookJwksUrl: `${sim}/fal/.well-known/jwks.json`,
        models: { 'video-c-3.1-fast': 'fal-ai/veo3.1/fast', 'video-b-2.0': 'bytedance/seedance-2.0', 'image-b-2.5': 'fal-ai/nano-banana' } },
    ],
  });

beforeAll(async () => {
  hooks = await startCallbackReceiver();
  const sim = createSimServer({ channels: config('http://127.0.0.1:1'), renderMs: 100, latencyMs: 0 });
  await new Promise<void>((r) => sim.server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(sim.server.address() as AddressInfo).port}`;
  adapters = createAdapters(config(base));
  stop = () => new Promise((r) => { sim.server.closeAllConnections(); sim.server.close(() => r()); });
});
afterAll(async () => {
  for (const a of adapters.values()) a.close();
  await stop();
  await hooks.close();
});

let n = 0;
const seedance = (prompt: string): VideoTaskSpec => ({
  type: 'video', model: 'video-b-2.0', prompt: `${prompt} #${++n}`, duration: 6, ratio: '9:16', resolution: '720p', tier: 'third-party', variant: null,
  refMode: null, effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null,
});
const req = (spec: VideoTaskSpec, callbackUrl?: string) => ({ taskId: `t${n}`, attemptId: `a${n}`, spec, outputSeconds: 6, references: [], callbackUrl });
const fal = () => adapters.get('fal-a')!;

/** Polls the render until it is no longer running (the simulator's render time, then the answer). */
const untilDone = (a: ChannelAdapter, id: string): Promise<RenderStatus> =>
  eventually(`render ${id} finished`, async () => {
    const s = await a.poll(id);
    return s.state !== 'running' && s;
  });
/** Success without a file is 'no outputs' (the worker settles it as no_result). */
const kindOf = (s: RenderStatus) => (s.state === 'failed' ? s.error.kind : s.state === 'succeeded' && !s.outputs.length ? 'no outputs' : s.state);

it('renders a video and calls back, signed with the key its JWKS publishes', async () => {
  const { upstreamId } = await fal().submit(req(seedance('a dog'), `${hooks.url}/fal-a?task=t&token=x`));
  expect(upstreamId).toMatch(/^bytedance\/seedance-2.0\/requests\//);
  const cb = await hooks.next();
  expect(cb.query).toMatchObject({ task: 't', token: 'x', fal_app: 'bytedance/seedance-2.0' });
  expect(await fal().verifyCallback!(cb)).toEqual({ upstreamId });
  expect(await fal().verifyCallback!({ ...cb, rawBody: Buffer.from(cb.rawBody.toString().replace('OK', 'ERROR')) })).toBeNull();
  const s = await untilDone(fal(), upstreamId);
  if (s.state !== 'succeeded' || s.outputs[0].kind !== 'url') throw new Error(`expected a URL, got ${JSON.stringify(s)}`);
  const file = Buffer.from(await (await fetch(s.outputs[0].url)).arrayBuffer());
  expect(file.subarray(4, 8).toString('latin1')).toBe('ftyp');
});

it('speaks each directive in fal signals', async () => {
  const kind = async (prompt: string) => kindOf(await untilDone(fal(), (await fal().submit(req(seedance(prompt)))).upstreamId));
  expect(await kind('#sim:violation')).toBe('violation');
  expect(await kind('#sim:fail')).toBe('failed');
  expect(await kind('#sim:no-file')).toBe('no outputs');
  const r = req(seedance('#sim:rate-limit=1 #sim:flaky=1'));
  await expect(fal().submit(r)).rejects.toMatchObject({ kind: 'transient', httpStatus: 429, retryAfterMs: 1000 });
  await expect(fal().submit(r)).rejects.toMatchObject({ kind: 'transient', httpStatus: 503 });
  await expect(fal().submit(r)).resolves.toHaveProperty('upstreamId');
});

it('cancels a running request; an unknown one is lost', async () => {
  const { upstreamId } = await fal().submit(req(seedance('#sim:hang')));
  await fal().cancel!(upstreamId);
  expect(kindOf(await untilDone(fal(), upstreamId))).toBe('failed');
  await expect(fal().poll('bytedance/seedance-2.0/requests/r_nope')).rejects.toMatchObject({ kind: 'lost' });
});

it('input refusals, lost requests and expired files in fal signals', async () => {
  await expect(fal().submit(req(seedance('#sim:violation-input')))).rejects.toMatchObject({ kind: 'violation', httpStatus: 422 });
  const lost = req(seedance('#sim:lost'));
  await expect(fal().poll((await fal().submit(lost)).upstreamId)).rejects.toMatchObject({ kind: 'lost' });
  expect(kindOf(await untilDone(fal(), (await fal().submit(lost)).upstreamId))).toBe('succeeded');
  const expired = await untilDone(fal(), (await fal().submit(req(seedance('#sim:expired')))).upstreamId);
  if (expired.state !== 'succeeded' || expired.outputs[0].kind !== 'url') throw new Error('expected a URL');
  expect((await fetch(expired.outputs[0].url)).status).toBe(404);
});
