// GET /: what this service is, where its console, reference, account pages and health checks are,
// which models it sells, and the SDK's five-line start, instead of a 404 for someone who opens the
// base URL. Styled with the console's stylesheet (same look, no inline style or script, nothing a
// Content-Security-Policy has to allow beyond 'self'); every interpolated value is escaped. The
// examples name a model this deployment sells (SOLD_MODELS).
import { Router } from 'express';
import { soldModelSummaries, WHOLE_CATALOG, type SoldCatalog } from '@mediagen/catalog';

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The catalog's usual example model when it is sold, else the first sold one of that type. */
const exampleModel = (sold: SoldCatalog, type: 'video' | 'image', usual: string): string | undefined => {
  const ids = sold.models(type).map((m) => m.id);
  return ids.includes(usual) ? usual : ids[0];
};

export function frontPage(baseUrl: string, sold: SoldCatalog = WHOLE_CATALOG): string {
  const base = escapeHtml(baseUrl);
  const image = exampleModel(sold, 'image', 'image-b-2.5');
  const video = exampleModel(sold, 'video', 'video-a-h3');
  const models = soldModelSummaries(sold)
    .map(({ model: m, options }) => `<tr><td><code>${escapeHtml(m.id)}</code></td><td>${m.type}</td><td>${options.map(escapeHtml).join(', ')}</td></tr>`)
    .join('\n');
  const sdkModel = image ? `{ model: '${escapeHtml(image)}', prompt: 'A red fox in fresh snow' }` : `{ model: '${escapeHtml(video ?? '')}', prompt: 'A red fox runs through snow' }`;
  const sdkCall = image ? 'mg.images.generate' : 'mg.videos.generate';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Media generation task service</title>
<link rel="stylesheet" href="/console/static/console.css"></head>
<body>
<header class="top">
  <strong class="brand">mediagen</strong>
  <nav>
    <a href="/console/">Console</a>
    <a href="/docs/">API reference</a>
    <a href="/account">Your account</a>
  </nav>
</header>
<main>
<h1>Media generation task service</h1>
<p>An asynchronous HTTP/JSON API that generates videos and images. Submit a task with
<code>POST /api/video/generate</code> or <code>POST /api/image/generate</code> (bearer API key), then poll
<code>GET /api/{video|image}/tasks/{taskId}</code> every 5-10 s until it is <code>completed</code> or <code>failed</code>.
Failed tasks are refunded.</p>
<div class="cols">
<div class="card narrow">
<strong>Operators</strong>
<a href="/console/">Console</a> (accounts, API keys, tasks, channels, webhooks; sign in as an operator)
<a href="/admin/queues/">Queues</a> (Bull Board, from a console session)
</div>
<div class="card narrow">
<strong>Developers</strong>
<a href="/docs/">API reference</a> (interactive)
<a href="/openapi.json">OpenAPI document</a> (<code>/openapi.json</code>)
<span><a href="/healthz">/healthz</a> (the process answers) and <a href="/readyz">/readyz</a> (Postgres and Redis answer)</span>
</div>
<div class="card narrow">
<strong>Account holders</strong>
<a href="/account">Your account</a> (sign in, keys, usage, top-up, webhooks)
</div>
</div>
<h2>Models offered here</h2>
<table>
<thead><tr><th>Model</th><th>Type</th><th>Tiers or variants</th></tr></thead>
<tbody>
${models}
</tbody>
</table>
<h2>Start with the SDK</h2>
<p>The SDK is <code>@mediagen/client</code>, installed from a tarball made in a clone of this repository:
<code>npm pack -w @mediagen/client</code>, then in your project <code>npm install /path/to/mediagen-client-&lt;version&gt;.tgz</code>.
Save this as <code>sdk.mjs</code> and run <code>node sdk.mjs</code> with <code>MEDIAGEN_API_KEY</code> set:</p>
<pre class="params"><code>import { MediaGen } from '@mediagen/client';
const mg = new MediaGen({ apiKey: process.env.MEDIAGEN_API_KEY, baseUrl: '${base}' });
const task = await ${sdkCall}(${sdkModel});
const done = await mg.tasks.wait(task.taskId);
console.log(done.status === 'completed' ? done.resultUrls : done.errorCode);
</code></pre>
<h2>Or the CLI</h2>
<pre class="params"><code>export MEDIAGEN_API_KEY=mg_... MEDIAGEN_BASE_URL=${base}
${image ? `npx mediagen image "A red fox in fresh snow" --model ${escapeHtml(image)} -o fox.png\n` : ''}${video ? `npx mediagen video "A red fox runs through snow" --model ${escapeHtml(video)} --wait -o fox.mp4\n` : ''}npx mediagen models
npx mediagen balance
</code></pre>
</main>
</body>
</html>
`;
}

export function frontPageRouter(baseUrl: string, sold?: SoldCatalog): Router {
  const r = Router();
  const html = frontPage(baseUrl, sold);
  r.get('/', (_req, res) => {
    // The service-wide policy allows nothing; this page loads the console's stylesheet, nothing else.
    res.set('Content-Security-Policy', "default-src 'none'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
    res.type('html').send(html);
  });
  return r;
}
