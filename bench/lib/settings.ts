// Knobs of a benchmark run, read once from the environment (docs/benchmark.md, "Running it").
export const MiB = 1024 * 1024;
export const CONNECTIONS = 64;
export const SUBMIT_SECONDS = Number(process.env.BENCH_SUBMIT_SECONDS ?? 20);
export const PHASE_SECONDS = Number(process.env.BENCH_PHASE_SECONDS ?? 10);
export const WARMUP_SECONDS = 3;
export const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 10_000);
export const BALANCE = 100_000_000;

/** A plain image model (answers `pending`) and an answers-at-once one (waits for its result). */
export const IMAGE_BODY = { model: 'image-b-2.5', prompt: 'a lighthouse at dusk, benchmark', ratio: '16:9' };
export const INSTANT_BODY = { model: 'image-c-2.1', prompt: 'a lighthouse at dusk, benchmark', ratio: '16:9' };
