// Result files of every simulated protocol: `GET /media/{renderId}/{n}` serves the render's file
// (the URL is the credential, as with the providers' signed links). Protocols put
// ctx.mediaUrl(...) into their answers instead of serving files themselves.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { imageSize, mp4File, paddedBytes, paddedMp4, pngFile } from './media-files';
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

const MiB = 1024 * 1024;

/**
 * Answers with the render's file. A video with #sim:result-mib is streamed: its padding is made as
 * the client reads it (backpressure through pipeline), so many concurrent 500 MiB downloads cost
 * the simulator a few chunks each; a client going away stops the generator.
 */
export async function sendMedia(render: Render, res: ServerResponse): Promise<void> {
  const mib = render.type === 'video' && !render.directives.badFile ? render.directives.resultMib : undefined;
  if (!mib) {
    const { file, contentType } = mediaFile(render);
    res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': String(file.length) });
    res.end(file);
    return;
  }
  const { head, padding } = paddedMp4(mp4File(render.ratio, render.resolution, render.duration), mib * MiB);
  res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': String(head.length + padding) });
  await pipeline(Readable.from(paddedBytes(head, padding), { objectMode: false }), res).catch(() => undefined);
}

export function serveMedia(store: RenderStore, req: IncomingMessage, res: ServerResponse, rest: string[]): void {
  const [id, n] = rest;
  const render = id ? store.byId(id) : undefined;
  if (!render || req.method !== 'GET') return fail(res, 404, 'not_found', 'No such file.');
  const view = store.view(render, false);
  if (view.status !== 'succeeded' || Number(n) !== 0 || view.outputs === 0) return fail(res, 404, 'not_found', 'No such file.');
  void sendMedia(render, res);
}
