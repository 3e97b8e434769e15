// music-metadata reads through strtok3 tokenizers. This one reads from a ByteSource, so the parser
// drives our Range reads: `ignore()` (skipping media data) only moves the position, and only the
// bytes the parser actually looks at are fetched.

import { EndOfStreamError, type IFileInfo } from 'strtok3/lib/core';
import { AbstractTokenizer } from 'strtok3/lib/AbstractTokenizer';
import type { IReadChunkOptions } from 'strtok3/lib/types';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ByteSource } from './byte-source';
import { throwIfAborted } from './problem';

// Reads served from memory resolve as microtasks, which never let timers run: a parser looping
// over a hostile file would starve the deadline timer. Every so many reads we yield a full turn
// of the event loop and look at the deadline.
const YIELD_EVERY = 64;

export class SourceTokenizer extends AbstractTokenizer {
  private reads = 0;

  constructor(private readonly source: ByteSource, private readonly signal: AbortSignal, fileInfo: IFileInfo = {}) {
    super({ ...fileInfo, size: source.size });
  }

  async readBuffer(target: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    const n = this.normalizeOptions(target, options);
    const read = await this.peekBuffer(target, options);
    this.position = n.position + read;
    return read;
  }

  async peekBuffer(target: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    const n = this.normalizeOptions(target, options);
    if (++this.reads % YIELD_EVERY === 0) await nextTurn();
    throwIfAborted(this.signal);
    const data = await this.source.read(n.position, n.length);
    // The size may only become known after the first reads (no Content-Length, Range ignored).
    if (this.fileInfo.size === undefined && this.source.size !== undefined) this.fileInfo.size = this.source.size;
    if (data.length < n.length && !n.mayBeLess) throw new EndOfStreamError();
    target.set(data, n.offset);
    return data.length;
  }
}
