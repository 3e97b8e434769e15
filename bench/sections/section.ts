// A bench section: one measured phase with its floors, run by bench/run.ts in the order of
// bench/sections/index.ts. `BENCH_ONLY=name,name` runs a subset; a section's floors run with it.
import type { BenchContext } from '../lib/context';

export interface Section {
  name: string;
  /** Polls tasks that must stay `pending`: they are made before any section starts the worker. */
  needsPendingTasks?: boolean;
  run: (ctx: BenchContext) => Promise<void>;
}
