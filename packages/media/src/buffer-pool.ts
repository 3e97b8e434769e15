// Fixed-size buffers handed out again and again, for streams whose chunks would otherwise be a fresh
// buffer per socket read. A fresh buffer is external memory that only a garbage
// collection gives back, and Node 24's collector gives it back late: ten 500 MiB downloads grew
// the worker by 80+ MiB of dead 64 KiB read buffers (docs/benchmark.md "large results"). A pooled
// buffer is never garbage, so the memory a transfer holds is the buffers it has out, and no more.

export class BufferPool {
  private readonly idle: Buffer[] = [];
  /** Buffers ever allocated by this pool (tests: reuse means this stops growing). */
  allocated = 0;
  /** Buffers handed out and not yet given back. */
  out = 0;

  /**
   * @param size bytes per buffer
   * @param keep idle buffers kept for later transfers; more given back are left to the collector
   */
  constructor(
    readonly size: number,
    private readonly keep: number,
  ) {}

  take(): Buffer {
    this.out += 1;
    const b = this.idle.pop();
    if (b) return b;
    this.allocated += 1;
    // Slow: its own memory, not a slice of Node's shared 8 KiB pool that other code keeps alive.
    return Buffer.allocUnsafeSlow(this.size);
  }

  /** Only a buffer no one reads or writes any more: the next take() may hand it out. */
  give(b: Buffer): void {
    this.out -= 1;
    if (this.idle.length < this.keep) this.idle.push(b);
  }

  get idleCount(): number {
    return this.idle.length;
  }
}
