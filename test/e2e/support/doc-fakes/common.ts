// What every doc-faithful fake shares: a node:http server that records each request, the jobs it
// renders (time-driven states), scenario words in the prompt, and real result bytes. The fakes are
// written from /work/shared/notes/providers.md (the vendors' public documentation), not from our
// adapters or our simulator: where the docs allow variants they pick the one an adapter written
// alongside our simulator is least likely to expect.
//
// Scenario words (the fakes' own, unrelated to the simulator's #sim: directives):
//   [fake:violation]        the render is refused by the provider's output moderation
//   [fake:input-violation]  the submit is refused by the provider's input moderation
//   [fake:429]              the first submit of this prompt is rate limited
//   [fake:500]              the first submit of this prompt answers a server error
//   [fake:alt]              the result in the protocol's other documented form
//   [fake:expired]          the render ends in the protocol's expired/aborted state
//   [fake:poll-429]         the first status call of the render is rate limited
//   [fake:op-error]         (gemini) the operation finishes with an error quoting a support code
//   [fake:image-safety]     (gemini) the image candidate ends IMAGE_SAFETY without an image
//   [fake:text-only]        (gemini) the image candidate ends STOP with only a text part
//   [fake:slow]             the render stays queued for 25 s, then runs for 2 s: it is still queued when a
//                           cancel arrives on a loaded machine (below the file's 30 s task timeout)
//   [fake:running]          the render runs at once (no queued phase) for 3 s
//   [fake:octet]            result files are served as application/octet-stream (object-store default)
//   [fake:gemini-denied]    (gemini) every call answers 403 PERMISSION_DENIED (the next channel takes it)
//   [fake:no-hook]          (fal) no webhook is delivered for this request
//   [fake:runner-error]     (fal) the COMPLETED request's result is a runner error (500)
//   [fake:no-media]         (fal) the COMPLETED request's result is 422 no_media_generated
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { buildMp4 } from '../../../../apps/provider-sim/src/mp4-writer';

export interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  status?: number;
  /** When the request arrived (ms). */
  at: number;
}

export interface Job {
  id: string;
  createdAt: number;
  prompt: string;
  body: Record<string, unknown>;
  cancelled: boolean;
  /** Filled by the protocol: the file the job made and anything else it needs. */
  extra: Record<string, unknown>;
}

export type Phase = 'queued' | 'running' | 'succeeded' | 'violation' | 'expired' | 'cancelled';

export interface Reply {
  status: number;
  json?: unknown;
  bytes?: Buffer;
  headers?: Record<string, string>;
}

export interface FakeContext {
  url: URL;
  req: http.IncomingMessage;
  body: unknown;
  /** The base URL of this fake (http://127.0.0.1:port). */
  origin: string;
}

export type Handler = (ctx: FakeContext) => Promise<Reply | undefined> | Reply | undefined;

export class Fake {
  readonly seen: Seen[] = [];
  readonly jobs = new Map<string, Job>();
  private readonly files = new Map<string, { type: string; bytes: Buffer; query?: Record<string, string> }>();
  private readonly firstCalls = new Set<string>();
  private server?: http.Server;
  origin = '';

  constructor(
    readonly protocol: string,
    private readonly handler: Handler,
    readonly renderMs = 600,
  ) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Requests whose path matches, in order. */
  calls(method: string, path: RegExp): Seen[] {
    return this.seen.filter((s) => s.method === method && path.test(s.path));
  }

  newJob(prompt: string, body: Record<string, unknown>, id = randomBytes(8).toString('hex')): Job {
    const job: Job = { id, createdAt: Date.now(), prompt, body, cancelled: false, extra: {} };
    this.jobs.set(id, job);
    return job;
  }

  phase(job: Job): Phase {
    if (job.cancelled) return 'cancelled';
    const age = Date.now() - job.createdAt;
    const renderMs = this.renderMsOf(job);
    const queuedMs = job.prompt.includes('[fake:slow]') ? 25_000 : job.prompt.includes('[fake:running]') ? 0 : renderMs / 4;
    if (age < queuedMs) return 'queued';
    if (age < renderMs) return 'running';
    if (job.prompt.includes('[fake:expired]')) return 'expired';
    return job.prompt.includes('[fake:violation]') ? 'violation' : 'succeeded';
  }

  renderMsOf(job: Job): number {
    return job.prompt.includes('[fake:slow]') ? 27_000 : job.prompt.includes('[fake:running]') ? 3000 : this.renderMs;
  }

  /** True once per (word, prompt): the first call of a scenario misbehaves, later ones succeed. */
  firstTime(word: string, prompt: string): boolean {
    if (!prompt.includes(`[fake:${word}]`)) return false;
    const key = `${word}\n${prompt}`;
    if (this.firstCalls.has(key)) return false;
    this.firstCalls.add(key);
    return true;
  }

  /** Publishes bytes at a path of this fake; `query` must come back intact (signed URLs). */
  publish(path: string, type: string, bytes: Buffer, query?: Record<string, string>, octet = false): string {
    this.files.set(path, { type: octet ? 'application/octet-stream' : type, bytes, query });
    const qs = query ? `?${new URLSearchParams(query)}` : '';
    return `${this.origin}${path}${qs}`;
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      /* kept as text */
    }
    const seen: Seen = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body, at: Date.now() };
    this.seen.push(seen);
    let reply: Reply | undefined;
    try {
      reply = this.serveFile(url) ?? (await this.handler({ url, req, body, origin: this.origin }));
    } catch (err) {
      reply = { status: 500, json: { error: String(err) } };
    }
    reply ??= { status: 404, json: { error: `no route ${req.method} ${url.pathname}` } };
    seen.status = reply.status;
    const headers: Record<string, string> = { ...reply.headers };
    let payload: Buffer | undefined = reply.bytes;
    if (reply.json !== undefined) {
      payload = Buffer.from(JSON.stringify(reply.json));
      headers['content-type'] ??= 'application/json';
    }
    res.writeHead(reply.status, headers);
    res.end(payload);
  }

  private serveFile(url: URL): Reply | undefined {
    const file = this.files.get(url.pathname);
    if (!file) return undefined;
    // A signed URL whose query string was re-encoded or dropped no longer verifies.
    for (const [k, v] of Object.entries(file.query ?? {})) {
      if (url.searchParams.get(k) !== v) return { status: 403, bytes: Buffer.from('<Error><Code>SignatureDoesNotMatch</Code></Error>'), headers: { 'content-type': 'application/xml' } };
    }
    return { status: 200, bytes: file.bytes, headers: { 'content-type': file.type, 'content-length': String(file.bytes.length) } };
  }
}

/** "16:9" -> [w, h] with the longer side `long`, both even. */
export function sizeFor(ratio: string | undefined, long = 64): [number, number] {
  const m = /^(\d+):(\d+)$/.exec(ratio ?? '');
  const [a, b] = m ? [Number(m[1]), Number(m[2])] : [1, 1];
  const even = (n: number) => Math.max(2, 2 * Math.round(n / 2));
  return a >= b ? [even(long), even((long * b) / a)] : [even((long * a) / b), even(long)];
}

export function pngBytes(width: number, height: number): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([200, 80, (i / 4) % 256, 255], i);
  return PNG.sync.write(png);
}

export function mp4Bytes(seconds: number, width: number, height: number): Buffer {
  return buildMp4({ seconds, width, height });
}

export const isPng = (b: Buffer) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
export const isMp4 = (b: Buffer) => b.subarray(4, 8).toString('latin1') === 'ftyp';

/** The prompt text of a request, wherever the protocol puts it. */
export function textOf(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export const bearer = (req: http.IncomingMessage) => /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];

/**
 * The documented content[] parts of ModelArk and MiniMax v2: text, or
 * {type:"<kind>_url", <kind>_url:{url}, role} with a role from the protocol's list. The first bad part's path, or undefined.
 */
export function badContentPart(content: unknown[], roles: readonly string[]): string | undefined {
  for (const [i, part] of content.entries()) {
    const p = part as Record<string, any>;
    if (p.type === 'text') continue;
    const kind = /^(image|video|audio)_url$/.exec(String(p.type))?.[1];
    if (!kind || typeof p[p.type]?.url !== 'string') return `content[${i}]`;
    if (p.role !== undefined && !roles.includes(p.role)) return `content[${i}].role`;
  }
  return undefined;
}
