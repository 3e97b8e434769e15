// Sends a stored file (or a byte range of it) into a writable, the HTTP response of /files, through
// a few reused 256 KiB buffers instead of fs.createReadStream's fresh 64 KiB buffer per chunk
// (docs/benchmark.md "large results"). Every fresh buffer is external memory that
// only a garbage collection gives back, so ten streamed 500 MiB results grew the gateway's RSS by
// the garbage (19-38 MiB) and its collector and fs.read calls cost 2.4x the CPU per MB of a bare
// range server. A buffer goes back to the pool only when the socket has taken its bytes (the
// write callback), so a byte is never overwritten while it may still be sent.
// Semantics are pipeline()'s: when the destination closes early (client gone, idle timeout) the
// descriptor is closed at once; when the file fails or comes up short the destination is
// destroyed, so the client sees a cut transfer.
import fs from 'node:fs';
import type { Writable } from 'node:stream';
import type { ByteRange } from './storage-driver';

export const SEND_CHUNK = 256 * 1024;
/** Reads in flight or written but not yet flushed, per transfer. */
const IN_FLIGHT = 2;
/** Idle buffers kept for the next transfers (8 MiB); more are left to the collector. */
const POOL_MAX = 32;
const pool: Buffer[] = [];
const take = (): Buffer => pool.pop() ?? Buffer.allocUnsafeSlow(SEND_CHUNK);
const give = (b: Buffer): void => {
  if (pool.length < POOL_MAX) pool.push(b);
};

/**
 * Writes bytes `range.start..range.end` (inclusive; the whole file without a range) of `file`
 * into `dest`, then ends it. `done` is called once: without an error when `dest` finished, with
 * one when the file failed or `dest` closed before the end.
 */
export function sendFile(file: string, range: ByteRange | undefined, dest: Writable, done: (err?: Error) => void): void {
  let fd: number | null = null;
  let pos = range?.start ?? 0;
  let end = range ? range.end : -1; // -1: until fstat says
  let busy = 0; // reads in flight plus writes not yet flushed
  let reading = false;
  let over = false;
  const closeFd = () => {
    if (fd !== null) fs.close(fd, () => undefined);
    fd = null;
  };
  const finish = (err?: Error) => {
    if (over) return;
    over = true;
    dest.removeListener('close', onClose);
    closeFd();
    if (err && !dest.destroyed) dest.destroy(err);
    done(err);
  };
  const onClose = () => finish(dest.writableFinished ? undefined : new Error('destination closed before the end'));
  dest.on('close', onClose);
  // As pipeline() does: the destination's errors (including the one it is destroyed with below)
  // are this transfer's, never an unhandled 'error' event. Left attached: it may fire after done.
  dest.on('error', (err) => finish(err));
  const pump = (): void => {
    if (over || fd === null || reading || busy >= IN_FLIGHT) return;
    if (pos > end) {
      if (busy === 0) {
        closeFd();
        dest.end();
      }
      return;
    }
    const buf = take();
    const want = Math.min(SEND_CHUNK, end - pos + 1);
    reading = true;
    busy += 1;
    fs.read(fd, buf, 0, want, pos, (err, got) => {
      reading = false;
      if (over) return give(buf);
      if (err || got === 0) {
        give(buf);
        return finish(err ?? new Error(`stored file ended at byte ${pos}, before ${end}`));
      }
      pos += got;
      dest.write(got === SEND_CHUNK ? buf : buf.subarray(0, got), (werr) => {
        busy -= 1;
        // A failed write may still hold the buffer: leave it to the collector.
        if (werr) return finish(werr);
        give(buf);
        pump();
      });
      pump();
    });
  };
  fs.open(file, 'r', (err, opened) => {
    if (err) return finish(err);
    fd = opened;
    if (over) return closeFd(); // the client left while the file was opening
    if (end >= 0) return pump();
    fs.fstat(opened, (serr, st) => {
      if (over) return;
      if (serr) return finish(serr);
      end = st.size - 1;
      pump();
    });
  });
  dest.once('finish', () => finish());
}
