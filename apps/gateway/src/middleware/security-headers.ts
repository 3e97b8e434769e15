// Security headers of every response, as helmet (the Express project's own recommendation,
// maintained, one line per header instead of hand-written ones that drift) sets them with the
// options below. Defaults kept: X-Content-Type-Options nosniff (JSON included), Referrer-Policy
// no-referrer, Cross-Origin-Opener-Policy, X-DNS-Prefetch-Control, X-Download-Options,
// origin-agent-cluster. Changed:
// - CSP `default-src 'none'; frame-ancestors 'none'` for everything: the API answers JSON, which
//   needs nothing loaded or framed. Pages that need more set their own (/docs, /files, Bull Board).
// - X-Frame-Options DENY (older browsers' frame protection).
// - Strict-Transport-Security only in production, where PUBLIC_BASE_URL must be https; a development
//   gateway on http://localhost must not pin browsers to https for a year.
// - Cross-Origin-Resource-Policy: cross-origin on /files only (results are embedded by clients'
//   own pages), same-origin elsewhere.
//
// One definition for both ways a response leaves the gateway: helmet runs once, at start, and what
// it sets is kept as a list (securityHeaderFields); the Express chain's middleware sets that list
// on every response and the cached-poll lane (routes/cached-poll.ts) writes the same list, so the
// two cannot send different headers. None of these headers depends on the request.
import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import type { Config } from '@mediagen/config';

type SecurityConfig = Pick<Config, 'NODE_ENV'>;

const helmetOptions = (config: SecurityConfig): HelmetOptions => ({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
  },
  frameguard: { action: 'deny' },
  strictTransportSecurity: config.NODE_ENV === 'production' ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  crossOriginResourcePolicy: { policy: 'same-origin' },
});

/** What helmet does to a response with these options: headers set (in its order) and removed. */
interface SecurityFields {
  /** Flat [name, value, ...], ready for writeHead. */
  set: readonly string[];
  removed: readonly string[];
}

const recorded = new Map<string, SecurityFields>();

function record(config: SecurityConfig): SecurityFields {
  const set: string[] = [];
  const removed: string[] = [];
  const drop = (name: string) => {
    const i = set.findIndex((n, k) => k % 2 === 0 && n.toLowerCase() === name.toLowerCase());
    if (i >= 0) set.splice(i, 2);
  };
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      drop(name);
      set.push(name, String(value));
    },
    removeHeader(name: string) {
      drop(name);
      removed.push(name);
    },
  };
  let done = false;
  helmet(helmetOptions(config))({} as never, recorder as never, (err?: unknown) => {
    if (err) throw err;
    done = true;
  });
  // helmet sets its headers synchronously; anything else would need a real response.
  if (!done) throw new Error('security headers: helmet did not finish synchronously');
  return { set, removed };
}

/** The security headers of every response, as a flat [name, value, ...] list in helmet's order. */
export function securityHeaderFields(config: SecurityConfig): readonly string[] {
  return securityFields(config).set;
}

function securityFields(config: SecurityConfig): SecurityFields {
  let f = recorded.get(config.NODE_ENV);
  if (f === undefined) recorded.set(config.NODE_ENV, (f = record(config)));
  return f;
}

/** The Express chain's middleware: sets securityHeaderFields() (and removes what helmet removes). */
export function securityHeaders(config: SecurityConfig): RequestHandler {
  const { set, removed } = securityFields(config);
  return (_req, res, next) => {
    for (const name of removed) res.removeHeader(name);
    for (let i = 0; i < set.length; i += 2) res.setHeader(set[i], set[i + 1]);
    next();
  };
}

/** Bull Board is an app of scripts and styles behind the admin token: framing is all it must refuse. */
export const bullBoardCsp = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'", "'unsafe-inline'"],
    styleSrc: ["'self'", "'unsafe-inline'", 'https:'],
    fontSrc: ["'self'", 'https:', 'data:'],
    imgSrc: ["'self'", 'data:'],
    frameAncestors: ["'none'"],
  },
});

/**
 * Stored files: a sandboxed document with nothing to run, whatever bytes a file holds, and
 * embeddable cross-origin (clients show results on their own pages).
 */
export const filesHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', "sandbox; default-src 'none'; frame-ancestors 'none'");
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
  next();
};

/** A NUL (%00) anywhere in the URL is refused before routing: no store or database may see one. */
export const refuseNulInUrl: RequestHandler = (req, _res, next) => {
  if (/%00/i.test(req.url)) return next(Object.assign(new Error('NUL in URL'), { status: 400, type: 'url.nul' }));
  next();
};
