// /docs: our generated API reference page and nothing else. swagger-ui-express
// served the whole swagger-ui-dist folder, including the stock index.html (which loads the
// third-party petstore document onto our origin) and oauth2-redirect.html. Here the page is ours,
// its script is a file (no inline script, so the CSP needs no 'unsafe-inline' for scripts), and
// only the few assets it loads are served, by name, from swagger-ui-dist.
import path from 'node:path';
import { Router } from 'express';
import helmet from 'helmet';

const DIST = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Media generation API reference</title>
<link rel="stylesheet" href="./swagger-ui.css">
<link rel="icon" type="image/png" href="./favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="./swagger-ui-bundle.js"></script>
<script src="./swagger-ui-standalone-preset.js"></script>
<script src="./reference.js"></script>
</body>
</html>
`;

const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'BaseLayout',
    validatorUrl: null,
  });
});
`;

/** The page's policy: our own scripts only; swagger-ui sets inline styles and data: images. */
export const docsCsp = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    fontSrc: ["'self'", 'data:'],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
  },
});

export function docsRouter(): Router {
  const r = Router({ strict: true });
  r.use(docsCsp);
  r.get('/', (req, res) => {
    // Relative asset URLs need the trailing slash; /docs redirects to /docs/.
    if (!req.originalUrl.split('?')[0].endsWith('/')) return res.redirect(301, '/docs/');
    res.type('html').send(PAGE);
  });
  r.get('/reference.js', (_req, res) => res.type('text/javascript; charset=utf-8').send(INIT));
  r.get('/:asset', (req, res, next) => {
    const type = Object.hasOwn(ASSETS, req.params.asset) ? ASSETS[req.params.asset] : undefined;
    if (!type) return next(); // not found: stock pages (index.html, oauth2-redirect.html) are not ours
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type(type).sendFile(path.join(DIST, req.params.asset));
  });
  return r;
}
