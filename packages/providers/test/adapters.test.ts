// The adapter registry covers every protocol of the channel config schema (the compile-time check
// in adapters.ts, seen from the outside), and a channel of a protocol without an adapter is refused
// when the adapters are created, naming the channel.
import { adapterFactories, createAdapters, parseChannelConfig, PROTOCOLS } from '../src';

it('has a factory for every protocol of the channel schema, and none extra', () => {
  expect(Object.keys(adapterFactories).sort()).toEqual([...PROTOCOLS].sort());
  expect(PROTOCOLS).toEqual(expect.arrayContaining(['modelark', 'minimax', 'gemini', 'fal', 'replicate']));
});

it('states capabilities for every adapter it creates', () => {
  const cfg = parseChannelConfig({ channels: [{ id: 'sim', baseUrl: 'http://127.0.0.1:1', apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' } }] });
  const a = createAdapters(cfg).get('sim')!;
  expect(a.capabilities).toEqual({ idempotentSubmit: true, cancel: false, callbacks: 'none', synchronous: false, findOrphan: false, pollUsesRender: false });
  a.close();
});

it('creates an adapter for a channel of every protocol, stating its capabilities', () => {
  for (const protocol of PROTOCOLS) {
    const cfg = parseChannelConfig({ channels: [{ id: `c-${protocol}`, protocol, baseUrl: 'https://up.example/v1', apiKey: 'k', costOrder: 1, models: { 'image-a-5.0': 'm' } }] });
    const a = createAdapters(cfg).get(`c-${protocol}`)!;
    expect(a.channel.protocol).toBe(protocol);
    expect(Object.keys(a.capabilities).sort()).toEqual(['callbacks', 'cancel', 'findOrphan', 'idempotentSubmit', 'pollUsesRender', 'synchronous']);
    // Only an upstream that really deduplicates submits may say so (the simulator's own protocol).
    expect(a.capabilities.idempotentSubmit).toBe(protocol === 'http-jobs');
    if (a.capabilities.cancel) expect(typeof a.cancel).toBe('function');
    if (a.capabilities.findOrphan) expect(typeof a.findOrphan).toBe('function');
    // Orphan searches exist where the upstream lists renders with something of ours in them.
    expect(a.capabilities.findOrphan).toBe(protocol === 'modelark' || protocol === 'replicate');
    if (a.capabilities.callbacks === 'signed') expect(typeof a.verifyCallback).toBe('function');
    a.close();
  }
});
