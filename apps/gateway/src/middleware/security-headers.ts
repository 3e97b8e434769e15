// Security headers of every response, set by helmet (the Express project's own recommendation,
// maintained, one line per header instead of hand-written ones that drift). Defaults kept:
// X-Content-Type-Options nosniff (JSON included), Referrer-Policy no-referrer,
// Cross-Origin-Opener-Policy, X-DNS-Prefetch-Control, X-Download-Options, origin-agent-cluster.
// Changed:
// - CSP `default-src 'none'; frame-ancestors 'none'` for everything: the API answers JSON, which
//   needs nothing loaded or framed. Pages that need more set their own (/docs, /files, Bull Board).
// - X-Frame-Options DENY (older browsers' frame protection).
// - Strict-Transport-Security only in production, where PUBLIC_BASE_URL must be https; a development
//   gateway on http://localhost must not pin browsers to https for a year.
// - Cross-Origin-Resource-Policy: cross-origin on /files only (results are embedded by clients'
//   own pages), same-origin elsewhere.
import type { RequestHandler } from 'express';
import helmet from 'helmet';
import type { Config } from '@mediagen/config';

export function securityHeaders(config: Pick<Config, 'NODE_ENV'>): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
    },
    frameguard: { action: 'deny' },
    strictTransportSecurity: config.NODE_ENV === 'production' ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
  });
}

/**
 * The headers securityHeaders() sets on every response, as a flat [name, value, ...] list in the
 * order helmet sets them: for a response written in one writeHead (routes/cached-poll.ts). They
 * are what helmet itself sets with this config (recorded once), so the two cannot drift apart.
 */
export function staticSecurityHeaders(config: Pick<Config, 'NODE_ENV'>): string[] {
  const out: string[] = [];
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      const i = out.indexOf(name);
      if (i >= 0) out.splice(i, 2);
      out.push(name, String(value));
    },
    removeHeader(name: string) {
      const i = out.indexOf(name);
      if (i >= 0) out.splice(i, 2);
    },
  };
  let done = false;
  securityHeaders(config)({} as never, recorder as never, (err?: unknown) => {
    if (err) throw err;
    done = true;
  });
  // helmet sets its headers synchronously; anything else would need a real response.
  if (!done) throw new Error('security headers: helmet did not finish synchronously');
  return out;
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
