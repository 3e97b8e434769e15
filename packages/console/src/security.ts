// Headers of every console page: a Content-Security-Policy that allows only our own script and
// style files (no inline script, no eval), no framing, and no referrer leaking ids to other sites.
import type { RequestHandler } from 'express';

export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The same headers for another server-rendered surface whose pages show media from `mediaOrigin`
 * too (the account pages' thumbnails and video player load result files from PUBLIC_BASE_URL,
 * which may not be the origin the pages are reached at).
 */
export function pageHeaders(mediaOrigin?: string): RequestHandler {
  const csp = mediaOrigin
    ? CONSOLE_CSP.replace("img-src 'self' data:", `img-src 'self' data: ${mediaOrigin}`).replace("default-src 'self'", `default-src 'self'; media-src 'self' ${mediaOrigin}`)
    : CONSOLE_CSP;
  return (_req, res, next) => {
    res.set({ 'Content-Security-Policy': csp, 'X-Frame-Options': 'DENY', 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'same-origin' });
    next();
  };
}

export const consoleHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy': CONSOLE_CSP,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
  });
  next();
};
