// The cached-poll lane's answer of one poll cache entry, built once per entry: the header fields in
// the order the Express chain sends them (X-Request-Id, the security headers, the RateLimit
// fields, Content-Type, ETag, Content-Length) and the body, with the three per-request values
// (X-Request-Id, RateLimit, RateLimit-Policy) left as slots that each answer fills in. Node builds
// the status line and the Date and connection fields itself, as it does for the chain.
//
// The field list is handed to writeHead, which reads it synchronously and keeps nothing of it, so
// one list per entry serves every answer: filled in and written in the same synchronous step, no
// copy per request. The body goes as a string: Node then sends the header block and the body in one
// write of one buffer, where a Buffer body is a second buffer of a vectored write.
import type { ServerResponse } from 'node:http';

export const JSON_TYPE = 'application/json; charset=utf-8';

export interface PollAnswer {
  /** Flat [name, value, ...]; the per-request values go at 1 (X-Request-Id), rate and rate + 2. */
  readonly fields: string[];
  /** Where the RateLimit value goes (RateLimit-Policy's is two further). */
  readonly rate: number;
  readonly body: string;
}

/** The answer of a body (`json`, its bytes) with `security` (flat [name, value, ...]) and the ETag ('' for none). */
export function buildPollAnswer(json: Buffer, security: readonly string[], etag: string): PollAnswer {
  const fields = ['X-Request-Id', '', ...security, 'RateLimit', '', 'RateLimit-Policy', '', 'Content-Type', JSON_TYPE];
  if (etag) fields.push('ETag', etag);
  fields.push('Content-Length', String(json.length));
  return { fields, rate: 3 + security.length, body: json.toString('utf8') };
}

/** Writes the answer with this request's id and RateLimit values: one writeHead, one end. */
export function writePollAnswer(res: ServerResponse, a: PollAnswer, id: string, rateLimit: string, policy: string): void {
  const f = a.fields;
  f[1] = id;
  f[a.rate] = rateLimit;
  f[a.rate + 2] = policy;
  res.writeHead(200, f);
  res.end(a.body);
}
