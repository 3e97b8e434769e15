// Memory of URL snapshots in flight, bounded per process: each URL
// reference is downloaded whole (up to 50 MiB) while it is measured, and a submit reads up to 8 at
// once, 2 submits per account: many accounts together could otherwise make one gateway hold
// gigabytes. Every snapshot reserves its bytes here as they arrive; past the budget the download
// stops and the submit is answered 503 with Retry-After (the service is busy, the input is fine).
// Reservations are given back when the inspection that made them ends.
import { MediaProblem } from './problem';

/** Thrown when the process-wide snapshot budget is spent: a 503, not the client's 400. */
export class SnapshotBudgetExhausted extends MediaProblem {}

export class SnapshotBudget {
  private used = 0;
  constructor(readonly limit: number) {}
  get inUse(): number {
    return this.used;
  }
  /** Reserves `n` bytes or throws SnapshotBudgetExhausted. */
  take(n: number): void {
    if (this.used + n > this.limit) {
      throw new SnapshotBudgetExhausted('the service is reading too many reference files at once; retry shortly');
    }
    this.used += n;
  }
  give(n: number): void {
    this.used = Math.max(0, this.used - n);
  }
}

/** 256 MiB per process: five maximal snapshots, or hundreds of ordinary clips, at once. */
export const DEFAULT_SNAPSHOT_BUDGET_BYTES = 256 * 1024 * 1024;
export const sharedSnapshotBudget = new SnapshotBudget(DEFAULT_SNAPSHOT_BUDGET_BYTES);
