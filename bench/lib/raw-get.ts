// A minimal HTTP/1.1 GET client for the time-to-result watchers: one kept-alive socket, one request
// at a time, a response read by its Content-Length. It exists because the figure is measured on the
// same two cores as the service: four watchers polling every 2 ms through undici's `request` cost
// the bench process 170-330 us of CPU a poll, the largest CPU user of the callbacks part (docs/
// benchmark.md, "Time to result with callbacks: the measurement's own load, and three cuts"), and
// that load lands on the cores in exactly the milliseconds the service settles. This client writes one prebuilt request and parses the status
// line and one header: a fraction of that. It is a bench tool for our own servers (the gateway and
// the simulator answer with Content-Length), not a general client: anything else is an error.
import net from 'node:net';

export interface RawResponse {
  status: number;
  body: Buffer;
}

const HEAD_END = Buffer.from('\r\n\r\n');

export class RawGet {
  private socket: net.Socket | null = null;
  private buf: Buffer = Buffer.alloc(0);
  private pending: { resolve: (r: RawResponse) => void; reject: (e: Error) => void } | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private body: { status: number; close: boolean; need: number; have: number; chunks: Buffer[] } | null = null;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  /** GET `path` with `headers`; requests on one client go one after the other. */
  get(path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
    let head = `GET ${path} HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\n`;
    for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
    head += '\r\n';
    const run = this.queue.then(() => this.send(head));
    this.queue = run.catch(() => undefined);
    return run;
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private connect(): net.Socket {
    const s = net.connect({ host: this.host, port: this.port, noDelay: true });
    s.on('data', (chunk: Buffer) => {
      if (this.socket !== s) return;
      if (this.body) {
        // A body of known length: chunks kept aside, joined once (a video is many chunks).
        this.body.chunks.push(chunk);
        this.body.have += chunk.length;
        if (this.body.have >= this.body.need) this.finishBody();
        return;
      }
      this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
      this.parse();
    });
    const fail = (err: Error) => {
      // A socket this client already let go of (close()) says nothing about the current request.
      if (this.socket !== s) return;
      this.socket = null;
      this.buf = Buffer.alloc(0);
      this.body = null;
      const p = this.pending;
      this.pending = null;
      p?.reject(err);
    };
    s.on('error', fail);
    s.on('close', () => fail(new Error('raw-get: connection closed')));
    return s;
  }

  private send(head: string): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      if (!this.socket) this.socket = this.connect();
      this.socket.write(head, 'latin1');
    });
  }

  private parse(): void {
    const end = this.buf.indexOf(HEAD_END);
    if (end < 0 || !this.pending) return;
    const head = this.buf.toString('latin1', 0, end);
    const status = Number(head.slice(9, 12));
    const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!m) {
      const p = this.pending;
      this.close();
      this.pending = null;
      p.reject(new Error(`raw-get: a response without Content-Length (${head.split('\r\n')[0]})`));
      return;
    }
    const rest = this.buf.subarray(end + 4);
    this.buf = Buffer.alloc(0);
    this.body = { status, close: /\r\nconnection:\s*close/i.test(head), need: Number(m[1]), have: rest.length, chunks: [rest] };
    if (this.body.have >= this.body.need) this.finishBody();
  }

  private finishBody(): void {
    const b = this.body!;
    this.body = null;
    const all = b.chunks.length === 1 ? b.chunks[0] : Buffer.concat(b.chunks, b.have);
    // One request at a time: nothing may follow the body on the wire.
    if (all.length > b.need) this.close();
    const p = this.pending;
    this.pending = null;
    if (b.close) this.close();
    p?.resolve({ status: b.status, body: all.subarray(0, b.need) });
  }
}

/** Kept-alive RawGet clients by origin, each serving one request at a time (like an agent). */
export class RawPool {
  private readonly idle = new Map<string, RawGet[]>();
  private readonly all: RawGet[] = [];

  async get(url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
    const u = new URL(url);
    if (u.protocol !== 'http:') throw new Error(`raw-get: ${u.protocol} is not served`);
    const origin = `${u.hostname}:${u.port || 80}`;
    const free = this.idle.get(origin) ?? [];
    this.idle.set(origin, free);
    let c = free.pop();
    if (!c) {
      c = new RawGet(u.hostname, Number(u.port || 80));
      this.all.push(c);
    }
    try {
      return await c.get(u.pathname + u.search, headers);
    } finally {
      free.push(c);
    }
  }

  close(): void {
    for (const c of this.all) c.close();
    this.idle.clear();
  }
}
