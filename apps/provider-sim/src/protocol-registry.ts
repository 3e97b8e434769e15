// How the simulator speaks several wire protocols on one port. Each protocol is one file in
// protocols/ that calls registerProtocol() with its mount point (the first path segment it answers
// under, e.g. `modelark` for `/modelark/api/v3/...`) and a handler. The shared parts (routing, the
// render store, directives, result files under /media) live here and in sim-server.ts, so a
// protocol author adds their own file and nothing else; loadProtocols() finds it.
import fs from 'node:fs';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Channel, Protocol } from '@mediagen/providers';
import type { Render, RenderStore } from './render-store';

export interface SimOptions {
  channels: { channels: Channel[] };
  /** Render time when the prompt has no #sim:delay. */
  renderMs: number;
  /** Added to every provider answer. */
  latencyMs: number;
  /**
   * Upstream model ids answered as retired, the way each real upstream answers a model it no longer
   * has (SIM_RETIRED_MODELS): renders and model lookups of them fail, so a test or a trial can map
   * one of our models to a retired id and watch the product notice.
   */
  retiredModels?: readonly string[];
  /** fal's webhook signing key, a PKCS#8 PEM Ed25519 private key (SIM_FAL_WEBHOOK_KEY); one made at start when absent. */
  falWebhookKey?: string;
  /** Replicate's webhook signing secret, `whsec_...` (SIM_REPLICATE_WEBHOOK_SECRET); one made at start when absent. */
  replicateWebhookSecret?: string;
}

/** What a protocol handler gets besides the request. */
export interface SimContext {
  store: RenderStore;
  opts: SimOptions;
  /** The configured channels of this protocol. */
  channels: Channel[];
  /**
   * The channel a request is for, by the key it carries (each default channel has its own key).
   * When several channels share a key, the first in config order answers.
   */
  channelByKey(key: string | undefined): Channel | undefined;
  /** Absolute URL of a render's n-th result file, served by the shared `/media/{renderId}/{n}` route. */
  mediaUrl(req: IncomingMessage, render: Render, n: number): string;
  /** `http://host:port` as the client reached us, for URLs in answers. */
  origin(req: IncomingMessage): string;
  /** Whether this channel has the upstream model: it maps it (in any field) and it is not retired. */
  hasModel(channel: Channel, model: string): boolean;
}

export interface SimRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Decoded path segments after the mount point. */
  rest: string[];
}

export interface SimProtocol {
  protocol: Protocol;
  /** First path segment this protocol answers under (`modelark`, `minimax`, `gemini`, `fal`, `replicate`, `ch`). */
  mount: string;
  handle(ctx: SimContext, r: SimRequest): Promise<void>;
}

const registry = new Map<string, SimProtocol>();

export function registerProtocol(p: SimProtocol): void {
  const taken = registry.get(p.mount);
  if (taken && taken.protocol !== p.protocol) throw new Error(`simulator mount /${p.mount} is taken by ${taken.protocol}`);
  registry.set(p.mount, p);
}

export const registeredProtocols = (): SimProtocol[] => [...registry.values()];
export const protocolAt = (mount: string): SimProtocol | undefined => registry.get(mount);

let loaded = false;

/** Loads every protocol file in protocols/ once (each registers itself). */
export function loadProtocols(): void {
  if (loaded) return;
  loaded = true;
  const dir = path.join(__dirname, 'protocols');
  for (const f of fs.readdirSync(dir).sort()) {
    if (!/\.(ts|js)$/.test(f) || f.endsWith('.d.ts') || /\.test\./.test(f)) continue;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require(path.join(dir, f));
  }
}
