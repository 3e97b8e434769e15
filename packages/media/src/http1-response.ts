// Incremental parser of one HTTP/1.1 response to a GET, for pooled-request.ts: Node's client parser
// copies every body chunk into a fresh buffer, which is the garbage this path exists to avoid. It
// hands out body bytes as ranges of the caller's buffer, valid during the call only.
// Strict where leniency lets a response mean two things: CRLF line ends, no folded header lines,
// no Content-Length beside Transfer-Encoding, one Content-Length value, bounded head and chunk
// lines. 1xx interim responses (103 Early Hints) are skipped; 101 is refused (we never ask to
// upgrade). Body framing per RFC 9112 6.3: none for 204/304, chunked when it is the last transfer
// coding, Content-Length, else until the connection closes.

export class MalformedResponse extends Error {
  constructor(message: string) {
    super(`malformed HTTP response: ${message}`);
    this.name = 'MalformedResponse';
  }
}

export interface ResponseHead {
  statusCode: number;
  /** Lower-case names; repeated headers joined with ", " (as node:http does). */
  headers: Record<string, string>;
}

export interface ResponseEvents {
  head(head: ResponseHead): void;
  /** Body bytes `src[start, end)`; valid during this call only (the buffer is read into again). */
  body(src: Buffer, start: number, end: number): void;
  end(): void;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})(?: [^\x00-\x08\x0a-\x1f\x7f]*)?$/;
const CHUNK_LINE = /^([0-9a-fA-F]{1,15})[ \t]*(?:;[^\x00-\x08\x0a-\x1f\x7f]*)?$/;
const CRLF2 = Buffer.from('\r\n\r\n', 'latin1');
/** Chunk-size lines and trailer lines: far more than any server needs. */
const MAX_LINE = 4096;

type State = 'head' | 'length' | 'close' | 'chunk-size' | 'chunk-data' | 'chunk-crlf' | 'trailer' | 'done';

export class Http1ResponseParser {
  private state: State = 'head';
  private head = Buffer.alloc(0);
  private remaining = 0;
  private line = '';
  private trailerBytes = 0;
  private sawResponse = false;

  constructor(
    private readonly on: ResponseEvents,
    private readonly maxHead = 64 * 1024,
  ) {}

  get done(): boolean {
    return this.state === 'done';
  }

  /** Bytes read from the connection. Throws MalformedResponse; bytes after the response are ignored. */
  push(data: Buffer): void {
    let i = 0;
    while (i < data.length && this.state !== 'done') {
      switch (this.state) {
        case 'head':
          i = this.readHead(data, i);
          break;
        case 'length':
        case 'chunk-data': {
          const n = Math.min(this.remaining, data.length - i);
          this.on.body(data, i, i + n);
          i += n;
          this.remaining -= n;
          if (this.remaining > 0) break;
          if (this.state === 'length') this.finish();
          else this.state = 'chunk-crlf';
          break;
        }
        case 'close':
          this.on.body(data, i, data.length);
          i = data.length;
          break;
        default:
          i = this.readLine(data, i);
      }
    }
  }

  /** The connection closed without an error: ends a close-delimited body; throws when cut short. */
  eof(): void {
    if (this.state === 'done') return;
    if (this.state === 'close') return this.finish();
    if (this.state === 'head') throw new MalformedResponse(this.head.length || this.sawResponse ? 'the connection closed inside the response head' : 'the connection closed before a response');
    throw new MalformedResponse(this.state === 'length' ? `the connection closed ${this.remaining} bytes before the end of the body` : 'the connection closed inside a chunked body');
  }

  private finish(): void {
    this.state = 'done';
    this.on.end();
  }

  private readHead(data: Buffer, from: number): number {
    const prev = this.head.length;
    const take = data.subarray(from, from + Math.min(data.length - from, this.maxHead + CRLF2.length - prev));
    // A copy: `data` is read into again. Once per response, small.
    this.head = Buffer.concat([this.head, take]);
    const at = this.head.indexOf(CRLF2, Math.max(0, prev - 3));
    if (at < 0) {
      if (this.head.length > this.maxHead) throw new MalformedResponse(`the head is larger than ${this.maxHead} bytes`);
      return from + take.length;
    }
    const used = at + CRLF2.length - prev;
    const text = this.head.toString('latin1', 0, at);
    this.head = Buffer.alloc(0);
    this.sawResponse = true;
    this.startBody(parseHead(text));
    return from + used;
  }

  private startBody(head: ResponseHead): void {
    const { statusCode, headers } = head;
    if (statusCode === 101) throw new MalformedResponse('101 Switching Protocols to a GET');
    if (statusCode < 200) return; // interim (100, 103): the real response follows
    const te = headers['transfer-encoding'];
    const cl = headers['content-length'];
    let length: number | null = null;
    if (te !== undefined) {
      if (cl !== undefined) throw new MalformedResponse('both Transfer-Encoding and Content-Length');
      const codings = te.split(',').map((c) => c.trim().toLowerCase());
      const chunked = codings.indexOf('chunked');
      if (chunked >= 0 && chunked !== codings.length - 1) throw new MalformedResponse(`chunked is not the last transfer coding (${te})`);
      this.state = chunked >= 0 ? 'chunk-size' : 'close';
    } else if (cl !== undefined) {
      const values = new Set(cl.split(',').map((v) => v.trim()));
      const [v] = values;
      if (values.size !== 1 || !/^\d{1,15}$/.test(v)) throw new MalformedResponse(`Content-Length ${JSON.stringify(cl)}`);
      length = Number(v);
      this.state = 'length';
      this.remaining = length;
    } else {
      this.state = 'close';
    }
    this.on.head(head);
    if (statusCode === 204 || statusCode === 304 || length === 0) this.finish();
  }

  /** Chunk-size lines, the CRLF after chunk data, trailer lines: byte by byte, they are short. */
  private readLine(data: Buffer, from: number): number {
    let i = from;
    while (i < data.length && this.state !== 'done') {
      const c = data[i++];
      if (c !== 0x0a) {
        this.line += String.fromCharCode(c);
        if (this.line.length > MAX_LINE) throw new MalformedResponse('a chunk or trailer line is too long');
        continue;
      }
      if (!this.line.endsWith('\r')) throw new MalformedResponse('a line ends without CR');
      const line = this.line.slice(0, -1);
      this.line = '';
      if (this.state === 'chunk-crlf') {
        if (line !== '') throw new MalformedResponse('chunk data longer than its size');
        this.state = 'chunk-size';
      } else if (this.state === 'chunk-size') {
        const m = CHUNK_LINE.exec(line);
        if (!m) throw new MalformedResponse(`chunk size line ${JSON.stringify(line.slice(0, 40))}`);
        this.remaining = parseInt(m[1], 16);
        this.state = this.remaining === 0 ? 'trailer' : 'chunk-data';
        return i;
      } else {
        // Trailers are read and dropped: nothing we store depends on them.
        this.trailerBytes += line.length + 2;
        if (this.trailerBytes > this.maxHead) throw new MalformedResponse('the trailers are too large');
        if (line === '') this.finish();
      }
    }
    return i;
  }
}

function parseHead(text: string): ResponseHead {
  const lines = text.split('\r\n');
  const status = STATUS_LINE.exec(lines[0]);
  if (!status) throw new MalformedResponse(`status line ${JSON.stringify(lines[0].slice(0, 80))}`);
  // No prototype: a header named __proto__ or constructor is just a header.
  const headers = Object.create(null) as Record<string, string>;
  for (const line of lines.slice(1)) {
    if (/^[ \t]/.test(line)) throw new MalformedResponse('a folded header line');
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon) : '';
    if (!TOKEN.test(name)) throw new MalformedResponse(`header line ${JSON.stringify(line.slice(0, 80))}`);
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
    // Control characters (a bare CR or LF above all) would let one header mean two things.
    if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) throw new MalformedResponse(`a control character in header ${name}`);
    const key = name.toLowerCase();
    headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
  }
  return { statusCode: Number(status[1]), headers };
}
