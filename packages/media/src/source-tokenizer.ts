// music-metadata reads through strtok3 tokenizers. This one reads from a ByteSource, so the parser
// drives our Range reads: `ignore()` (skipping media data) only moves the position, and only the
// bytes the parser actually looks at are fetched.

import { EndOfStreamError, type IFileInfo } from 'strtok3/lib/core';
import { AbstractTokenizer } from 'strtok3/lib/AbstractTokenizer';
import type { IReadChunkOptions } from 'strtok3/lib/types';
import type { ByteSource } from './byte-source';

export class SourceTokenizer extends AbstractTokenizer {
  constructor(private readonly source: ByteSource, fileInfo: IFileInfo = {}) {
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
    const data = await this.source.read(n.position, n.length);
    // The size may only become known after the first reads (no Content-Length, Range ignored).
    if (this.fileInfo.size === undefined && this.source.size !== undefined) this.fileInfo.size = this.source.size;
    if (data.length < n.length && !n.mayBeLess) throw new EndOfStreamError();
    target.set(data, n.offset);
    return data.length;
  }
}
