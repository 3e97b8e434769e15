// A bench section: one measured phase with its floors, run by bench/run.ts in the order of
// bench/sections/index.ts. `BENCH_ONLY=name,name` runs a subset; a section's floors run with it.
import type { BenchContext } from '../lib/context';

export interface Section {
  name: string;
  run: (ctx: BenchContext) => Promise<void>;
}
