// GET /: what this service is, where its reference and health checks are, and the SDK's five-line
// start, instead of a 404 for someone who opens the base URL. Static HTML with no script or style
// (nothing a Content-Security-Policy has to allow); the one interpolated value is escaped.
import { Router } from 'express';

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function frontPage(baseUrl: string): string {
  const base = escapeHtml(baseUrl);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Media generation task service</title></head>
<body>
<h1>Media generation task service</h1>
<p>An asynchronous HTTP/JSON API that generates videos and images. Submit a task with
<code>POST /api/video/generate</code> or <code>POST /api/image/generate</code> (bearer API key), then poll
<code>GET /api/{video|image}/tasks/{taskId}</code> every 5-10 s until it is <code>completed</code> or <code>failed</code>.
Failed tasks are refunded.</p>
<ul>
<li><a href="/docs/">API reference</a> (interactive)</li>
<li><a href="/openapi.json">OpenAPI document</a> (<code>/openapi.json</code>)</li>
<li><a href="/healthz">/healthz</a> (the process answers) and <a href="/readyz">/readyz</a> (Postgres and Redis answer)</li>
</ul>
<h2>Start with the SDK</h2>
<p><code>npm install @mediagen/client</code> (in this repository: already a workspace), then:</p>
<pre><code>import { MediaGen } from '@mediagen/client';
const mg = new MediaGen({ apiKey: process.env.MEDIAGEN_API_KEY, baseUrl: '${base}' });
const task = await mg.images.generate({ model: 'image-b-2.5', prompt: 'A red fox in fresh snow' });
const done = await mg.tasks.wait(task.taskId);
console.log(done.status === 'completed' ? done.resultUrls : done.errorCode);
</code></pre>
<h2>Or the CLI</h2>
<pre><code>export MEDIAGEN_API_KEY=mg_... MEDIAGEN_BASE_URL=${base}
npx mediagen image "A red fox in fresh snow" --model image-b-2.5 --ratio 16:9 -o fox.png
npx mediagen video "A red fox runs through snow" --model video-a-h3 --duration 5 --wait -o fox.mp4
npx mediagen balance
</code></pre>
</body>
</html>
`;
}

export function frontPageRouter(baseUrl: string): Router {
  const r = Router();
  const html = frontPage(baseUrl);
  r.get('/', (_req, res) => {
    res.type('html').send(html);
  });
  return r;
}
