// sendFile (file-sender.ts): the /files route's way of sending stored files with reused buffers.
// What must hold whatever the chunking: exact bytes for any range, no buffer overwritten while the
// destination still holds it, the descriptor closed when the destination goes away early, and a
// cut (destroyed) destination when the file comes up short.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { SEND_CHUNK, sendFile } from '../src/file-sender';
import { waitFor } from '../../../test/e2e/support/wait';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-sender-'));
const file = path.join(dir, 'data.bin');
// 3.5 chunks of random bytes: no two chunks alike, so a buffer overwritten while held shows.
const data = randomBytes(Math.floor(SEND_CHUNK * 3.5));
fs.writeFileSync(file, data);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const openFds = () => fs.readdirSync('/proc/self/fd').filter((fd) => {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`) === file;
  } catch {
    return false;
  }
}).length;

/** Waits (5 s at most) for the file's descriptors to reach `n`; the expectation after it says what stayed. */
const fdsSettleAt = (n: number) => waitFor(() => openFds() === n, 5_000, `${n} open descriptors of the file`).catch(() => undefined);

/**
 * A destination that sends each chunk late, as a socket whose kernel buffer is full: the bytes are
 * taken (copied) only when the write completes, so a chunk overwritten before then shows.
 */
function slowSink(delayMs: number) {
  const held: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      setTimeout(() => {
        held.push(Buffer.from(chunk));
        cb();
      }, delayMs);
    },
  });
  return { sink, bytes: () => Buffer.concat(held) };
}

const send = (range: { start: number; end: number } | undefined, dest: Writable) =>
  new Promise<Error | undefined>((resolve) => sendFile(file, range, dest, resolve));

describe('sendFile', () => {
  it('sends exact bytes for the whole file and for ranges across chunk edges, never reusing a buffer the destination holds', async () => {
    for (const range of [undefined, { start: 0, end: 0 }, { start: SEND_CHUNK - 3, end: 2 * SEND_CHUNK + 5 }, { start: 1000, end: data.length - 1 }]) {
      const { sink, bytes } = slowSink(2);
      expect(await send(range, sink)).toBeUndefined();
      expect(bytes().equals(range ? data.subarray(range.start, range.end + 1) : data)).toBe(true);
    }
    await fdsSettleAt(0); // fs.close is asynchronous
    expect(openFds()).toBe(0);
  });

  it('closes the file at once when the destination goes away early', async () => {
    // A destination that takes the first chunk and never finishes writing it: the file stays open.
    const sink = new Writable({ write: () => undefined });
    const done = send(undefined, sink);
    await fdsSettleAt(1); // fs.open is asynchronous too
    expect(openFds()).toBe(1);
    sink.destroy();
    expect(await done).toBeInstanceOf(Error);
    await fdsSettleAt(0);
    expect(openFds()).toBe(0);
  });

  it('destroys the destination when the file is shorter than the range', async () => {
    const { sink } = slowSink(0);
    const err = await send({ start: data.length - 10, end: data.length + 100 }, sink);
    expect(err?.message).toMatch(/ended at byte/);
    expect(sink.destroyed).toBe(true);
    await fdsSettleAt(0);
    expect(openFds()).toBe(0);
  });

  it('answers a missing file with its error and destroys the destination', async () => {
    const sink = new Writable({ write: (_c, _e, cb) => cb() });
    const err = await new Promise<Error | undefined>((resolve) => sendFile(path.join(dir, 'missing'), undefined, sink, resolve));
    expect((err as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(sink.destroyed).toBe(true);
  });
});
