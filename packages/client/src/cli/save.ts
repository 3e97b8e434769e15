// Saves a task's first result file to the path given with -o, streamed (videos can be large).
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { MediaGenError } from '../errors';

export async function saveResult(url: string, file: string, signal?: AbortSignal): Promise<number> {
  const res = await fetch(url, { signal });
  if (!res.ok || !res.body) throw new MediaGenError(`Download of ${url} failed: HTTP ${res.status}`);
  await pipeline(Readable.fromWeb(res.body as unknown as WebReadableStream), fs.createWriteStream(file));
  return fs.statSync(file).size;
}
