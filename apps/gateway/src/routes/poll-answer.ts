// The cached-poll lane's answer of one poll cache entry, built once per entry: the header fields in
// the order the Express chain sends them (X-Request-Id, the security headers, the RateLimit
// fields, Content-Type, ETag, Content-Length) and the body, with the three per-request values
// (X-Request-Id, RateLimit, RateLimit-Policy) left as slots that each answer fills in.
//
// Two forms of the same answer. The usual one is the whole header block as text, status line
// first, in four pieces around the slots, and the body's bytes as a latin1 string: an answer is
// those pieces and this request's values joined, handed to the response as its header block
// (prepared-response.ts adds Date and the connection fields as Node would), and sent with the body
// in one write, without writeHead's work per field. The other is the field list for writeHead
// (with the same latin1 body), for a response something has touched already (a shutting-down
// gateway sets Connection: close on every response first): writeHead reads the list synchronously
// and keeps nothing of it, so one list per entry serves every answer, filled in place. Both send
// the same bytes.
import { validateHeaderName, validateHeaderValue, type ServerResponse } from 'node:http';
import { canPrepare, endPrepared } from './prepared-response';

export const JSON_TYPE = 'application/json; charset=utf-8';

export interface PollAnswer {
  /** Flat [name, value, ...]; the per-request values go at 1 (X-Request-Id), rate and rate + 2. */
  readonly fields: string[];
  /** Where the RateLimit value goes (RateLimit-Policy's is two further). */
  readonly rate: number;
  /** The header block up to Date, cut before X-Request-Id's, RateLimit's and RateLimit-Policy's values. */
  readonly head: readonly [string, string, string, string];
  /** The body's bytes, one latin1 character each (so its length is the Content-Length). */
  readonly wire: string;
}

const ASCII = /^[\x20-\x7e]*$/;

/** The answer of a body (`json`, its bytes) with `security` (flat [name, value, ...]) and the ETag ('' for none). */
export function buildPollAnswer(json: Buffer, security: readonly string[], etag: string): PollAnswer {
  const fields = ['X-Request-Id', '', ...security, 'RateLimit', '', 'RateLimit-Policy', '', 'Content-Type', JSON_TYPE];
  if (etag) fields.push('ETag', etag);
  fields.push('Content-Length', String(json.length));
  const rate = 3 + security.length;
  // writeHead checks every field of every answer; the fixed ones are checked here, once (they are
  // ASCII: the header block goes as latin1), and the per-request values are the request id
  // (middleware/request-log.ts allows a plain ASCII id only) and the rate limit's own figures.
  for (let i = 0; i < fields.length; i += 2) {
    validateHeaderName(fields[i]);
    if (i === 0 || i === rate - 1 || i === rate + 1) continue;
    validateHeaderValue(fields[i], fields[i + 1]);
    if (!ASCII.test(fields[i + 1])) throw new Error(`poll answer: ${fields[i]} is not ASCII`);
  }
  const lines = (from: number, to: number) => {
    let s = '';
    for (let i = from; i < to; i += 2) s += `${fields[i]}: ${fields[i + 1]}\r\n`;
    return s;
  };
  const head = [
    'HTTP/1.1 200 OK\r\nX-Request-Id: ',
    `\r\n${lines(2, rate - 1)}RateLimit: `,
    '\r\nRateLimit-Policy: ',
    `\r\n${lines(rate + 3, fields.length)}`,
  ] as const;
  return { fields, rate, head, wire: json.toString('latin1') };
}

/** Writes the answer with this request's id and RateLimit values, header block and body in one write. */
export function writePollAnswer(res: ServerResponse, a: PollAnswer, id: string, rateLimit: string, policy: string): void {
  if (canPrepare(res)) {
    const h = a.head;
    endPrepared(res, h[0] + id + h[1] + rateLimit + h[2] + policy + h[3], a.wire);
    return;
  }
  const f = a.fields;
  f[1] = id;
  f[a.rate] = rateLimit;
  f[a.rate + 2] = policy;
  res.writeHead(200, f);
  res.end(a.wire, 'latin1');
}
