// The provider simulator's HTTP surface: one port, one mount point per wire protocol
// (protocol-registry.ts; each protocol is a file in protocols/), shared result files under /media,
// and stats for tests. Plain node:http rather than Express: in benchmarks it answers thousands of
// polls a second on a shared 2-core machine.
import http, { IncomingMessage } from 'node:http';
import type { Channel } from '@mediagen/providers';
import { mediaUrlPath } from './media-path';
import { serveMedia } from './media-route';
import { loadProtocols, protocolAt, SimContext, SimOptions } from './protocol-registry';
import { RenderStore } from './render-store';
import { createOptimizerSim, type OptimizerSim } from './optimizer';
import { fail, send } from './sim-http';

export type { SimOptions } from './protocol-registry';

/** Every upstream model a channel sends to: its `models` values (a Replicate version's name too) and a MiniMax channel's effort models. */
function upstreamModels(channel: Channel): string[] {
  const values = Object.values(channel.models);
  const effort = channel.protocol === 'minimax' ? Object.values(channel.effortModels).filter((v): v is string => !!v) : [];
  return [...values, ...values.map((v) => v.split(':')[0]), ...effort];
}

export function createSimServer(opts: SimOptions): { server: http.Server; store: RenderStore; optimizer: OptimizerSim } {
  loadProtocols();
  const store = new RenderStore();
  // optimize_prompt's language model, both protocols (optimizer.ts).
  const optimizer = createOptimizerSim(opts.latencyMs);
  const sweeper = setInterval(() => store.sweep(), 60_000);
  sweeper.unref();
  const origin = (req: IncomingMessage) => `http://${req.headers.host ?? '127.0.0.1'}`;
  const contexts = new Map<string, SimContext>();
  const retired = new Set(opts.retiredModels ?? []);
  const contextFor = (protocol: string): SimContext => {
    let ctx = contexts.get(protocol);
    if (!ctx) {
      const channels: Channel[] = opts.channels.channels.filter((c) => c.protocol === protocol);
      // Channels sharing a key are one upstream account (the example config's ARK_API_KEY serves
      // four channels): the first answers, and the account has every model any of them maps.
      const byKey = new Map<string, Channel>();
      for (const c of channels) {
        const first = byKey.get(c.apiKey);
        if (!first) byKey.set(c.apiKey, c);
        else
          byKey.set(c.apiKey, {
            ...first,
            models: { ...c.models, ...first.models, ...Object.fromEntries(Object.entries(c.models).filter(([k]) => k in first.models).map(([k, v]) => [`${k}@${c.id}`, v])) },
          } as Channel);
      }
      ctx = {
        store,
        opts,
        channels,
        channelByKey: (key) => (key === undefined ? undefined : byKey.get(key)),
        mediaUrl: (req, render, n) => `${origin(req)}${mediaUrlPath(render.id, n)}`,
        origin,
        hasModel: (channel, model) => !retired.has(model) && upstreamModels(channel).includes(model),
      };
      contexts.set(protocol, ctx);
    }
    return ctx;
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sim');
    let parts: string[];
    try {
      parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    } catch {
      return fail(res, 400, 'invalid_request', 'Bad path.');
    }
    const route = async () => {
      if (parts[0] === 'healthz') return send(res, 200, { ok: true });
      if (parts[0] === 'stats' && parts.length === 1) return send(res, 200, { ...store.totals, inFlight: store.inFlight() });
      if (parts[0] === 'stats' && parts[1] === 'refs' && parts[2]) return send(res, 200, store.refSummary(parts[2]));
      if (parts[0] === 'stats' && parts[1] === 'renders' && parts[2]) {
        const timing = store.timing(parts[2]);
        return timing ? send(res, 200, timing) : fail(res, 404, 'not_found', 'No such render.');
      }
      if (parts[0] === 'media') return serveMedia(store, req, res, parts.slice(1));
      if (parts[0] === 'optimizer') return optimizer.handle(req, res, parts.slice(1));
      if (parts[0] === 'stats' && parts[1] === 'optimizer') return send(res, 200, optimizer.calls);
      const protocol = parts[0] ? protocolAt(parts[0]) : undefined;
      if (protocol) return protocol.handle(contextFor(protocol.protocol), { req, res, url, rest: parts.slice(1) });
      return fail(res, 404, 'not_found', 'No such route.');
    };
    route().catch((err) => {
      if (!res.headersSent) fail(res, 500, 'internal', String((err as Error)?.message ?? err));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('close', () => clearInterval(sweeper));
  return { server, store, optimizer };
}
