// A 200 response whose header block was built ahead (routes/poll-answer.ts), handed to Node's
// ServerResponse as its own: the block goes where writeHead would have put the one it builds (the
// response's `_header`), then the response's own end() sends block and body in one socket write
// and runs all of the server's bookkeeping as for any response. Pipelined requests are answered in
// order (a response written before its turn waits in the response's queue), 'finish' detaches the
// socket and arms the keep-alive timeout or ends a `Connection: close` / HTTP/1.0 connection, and
// closeIdleConnections, headersTimeout and requestTimeout see nothing unusual.
//
// What it skips is writeHead's work per request: about twenty fields validated (a token check of
// each name, a character check of each value), each name lower-cased and matched against the
// fields Node treats specially, and the block concatenated field by field. The Date, Connection
// and Keep-Alive fields are added here exactly as Node's _storeHeader adds them (Node 24,
// lib/_http_outgoing.js), so the bytes on the wire are those writeHead would send.
//
// This relies on ServerResponse fields that are not public API (Node 24 is pinned, see
// scripts/ci/node-lts.sh): when they are not what is expected, or anything has touched the response
// already (a header set, as the shutting-down gateway's Connection: close is, or removed),
// `canPrepare` says no and the caller writes with writeHead. apps/gateway/test/cached-poll.test.ts
// compares the bytes on a real socket with the Express chain's (keep-alive, pipelining,
// Connection: close, HTTP/1.0), so a Node upgrade that changes how it frames a response fails there.
import type { ServerResponse } from 'node:http';

/** ServerResponse's fields that writeHead and _storeHeader read or set for a response like ours. */
interface NodeResponse {
  _header: string | null;
  _headerSent: boolean;
  _last: boolean;
  _contentLength: number | null;
  _hasBody: boolean;
  _removedConnection: boolean;
  _removedContLen: boolean;
  _removedTE: boolean;
  _defaultKeepAlive: boolean;
  _keepAliveTimeout: number;
  _maxRequestsPerSocket: number | undefined;
  _expect_continue: boolean;
  _sent100: boolean;
  shouldKeepAlive: boolean;
  maxRequestsOnConnectionReached: boolean;
  chunkedEncoding: boolean;
  sendDate: boolean;
  strictContentLength: boolean;
}

type Res = ServerResponse & NodeResponse;

/**
 * True when `res` is as the server made it (no header set or removed, no status, nothing written,
 * a body allowed) and has the fields this module sets: then `endPrepared` sends what writeHead
 * would. False means: write it with writeHead.
 */
export function canPrepare(res: ServerResponse): boolean {
  const r = res as Res;
  return (
    r._header === null &&
    r._headerSent === false &&
    r._hasBody === true &&
    r.sendDate === true &&
    r.chunkedEncoding === false &&
    r.strictContentLength === false &&
    r.statusCode === 200 &&
    r.statusMessage === undefined &&
    r._removedConnection === false &&
    r._removedContLen === false &&
    r._removedTE === false &&
    typeof r.shouldKeepAlive === 'boolean' &&
    // A header set by an earlier listener (setHeader keeps them in a map writeHead would merge in).
    r.getHeaderNames().length === 0
  );
}

// Node's Date field: the same string for a whole second (its utcDate(), lib/internal/http.js).
let date: string | undefined;
const resetDate = () => {
  date = undefined;
};
function httpDate(): string {
  if (date === undefined) {
    const d = new Date();
    date = d.toUTCString();
    setTimeout(resetDate, 1000 - d.getMilliseconds()).unref();
  }
  return date;
}

// The keep-alive fields depend on two server settings; the last string built is kept.
let keepAlive = { timeout: -1, max: -1, fields: '' };

/**
 * The Connection (and Keep-Alive) fields _storeHeader adds to a response with a Content-Length and
 * no Connection field of its own, with the same effect on `_last` (the socket ends after it).
 */
function connectionFields(r: Res): string {
  // writeHead's rule: a client that asked for 100-continue and never got it may send more bytes.
  const persist = r.shouldKeepAlive && !(r._expect_continue && !r._sent100);
  if (!persist) {
    r._last = true;
    return 'Connection: close\r\n';
  }
  if (r.maxRequestsOnConnectionReached) return 'Connection: close\r\n';
  const timeout = r._keepAliveTimeout && r._defaultKeepAlive ? r._keepAliveTimeout : 0;
  const max = ~~(r._maxRequestsPerSocket ?? 0);
  if (keepAlive.timeout !== timeout || keepAlive.max !== max) {
    const ka = timeout ? `Keep-Alive: timeout=${Math.floor(timeout / 1000)}${max > 0 ? `, max=${max}` : ''}\r\n` : '';
    keepAlive = { timeout, max, fields: `Connection: keep-alive\r\n${ka}` };
  }
  return keepAlive.fields;
}

/**
 * Ends `res` (canPrepare must have said yes) with status 200: `head` is the status line and every
 * field up to, not including, Date (each line ending in CRLF), all ASCII; `body` is the body's
 * bytes as a latin1 string (`Buffer.toString('latin1')`: one character per byte, so its length
 * is the Content-Length in `head`). Node adds nothing: block and body leave in one write, latin1 (one
 * byte per character, no UTF-8 encoding pass).
 */
export function endPrepared(res: ServerResponse, head: string, body: string): void {
  const r = res as Res;
  r.statusMessage = 'OK';
  r._contentLength = body.length;
  r._header = `${head}Date: ${httpDate()}\r\n${connectionFields(r)}\r\n`;
  res.end(body, 'latin1');
}
