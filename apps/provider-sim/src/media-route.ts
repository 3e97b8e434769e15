// Result files of every simulated protocol: `GET /media/{renderId}/{n}` serves the render's file
// (the URL is the credential, as with the providers' signed links). Protocols put
// ctx.mediaUrl(...) into their answers instead of serving files themselves.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { imageSize, mp4File, pngFile } from './media-files';
import type { Render, RenderStore } from './render-store';
import { fail } from './sim-http';

/** The bytes a render produced: a PNG at its ratio and size, an MP4, or (#sim:bad-file) an HTML page. */
export function mediaFile(render: Render): { file: Buffer; contentType: string } {
  if (render.directives.badFile) return { file: Buffer.from('<html><body>Internal error</body></html>'), contentType: 'text/html' };
  if (render.type === 'image') {
    const { width, height } = imageSize(render.ratio, render.resolution);
    return { file: pngFile(width, height), contentType: 'image/png' };
  }
  return { file: mp4File(render.ratio, render.resolution, render.duration), contentType: 'video/mp4' };
}

export function serveMedia(store: RenderStore, req: IncomingMessage, res: ServerResponse, rest: string[]): void {
  const [id, n] = rest;
  const render = id ? store.byId(id) : undefined;
  if (!render || req.method !== 'GET') return fail(res, 404, 'not_found', 'No such file.');
  const view = store.view(render, false);
  if (view.status !== 'succeeded' || Number(n) !== 0 || view.outputs === 0) return fail(res, 404, 'not_found', 'No such file.');
  const { file, contentType } = mediaFile(render);
  res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': String(file.length) });
  res.end(file);
}
