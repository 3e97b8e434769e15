// Node flags and environment an app is started with, the same from every launcher: `npm start`
// (scripts/start.ts), the end-to-end tests, chaos and the benchmark (processes.ts), the fuzz and
// hostile-load gateway (gateway-process.ts). The Dockerfile, docker-compose.yml and
// docs/operations.md spell the same flags and variables out; test/deploy/hygiene.test.ts holds them
// to this file.
//
// Gateway, --max-semi-space-size=16: since Node 22, V8 sizes the young generation from the
// machine's memory, and on a host with a few GiB or more each semi-space may grow to 64 MiB (Node
// 20: 16 MiB). A gateway under 64 connections allocates fast enough to grow it to the maximum,
// so its new space held 128 MiB (two semi-spaces) and its RSS peak under load rose from 229-239
// MiB on Node 20 to 313-354 MiB on Node 24, with the old generation and everything else the same
// (docs/benchmark.md, "Gateway RSS on Node 24"). 16 MiB is Node 20's size, with which the
// benchmark's throughput figures were met. V8 reads the flag only when the heap is set up, so it
// cannot be set from main.ts (v8.setFlagsFromString there has no effect on it).
// Worker, the same flag (2026-11-23): with 10,000 renders in flight its RSS peaked at 475 MiB on
// Node 24 with the default young generation (idle 362), 322 MiB with 16 MiB semi-spaces (idle 247).
const FLAGS: Record<string, readonly string[]> = {
  'apps/gateway/src/main.ts': ['--max-semi-space-size=16'],
  'apps/worker/src/main.ts': ['--max-semi-space-size=16'],
};

/** An entry file's key in the tables here: relative to the repository root, with forward slashes. */
const entryKey = (entry: string): string => entry.replace(/\\/g, '/');

/** The Node flags of an app, by its entry file relative to the repository root. */
export const nodeFlagsFor = (entry: string): string[] => [...(FLAGS[entryKey(entry)] ?? [])];

// The gateway, MALLOC_ARENA_MAX=2: glibc gives threads other than the main one arenas of their
// own, up to 8 per core, and each keeps what it once held (V8's helper threads and libuv's pool do
// most of the allocating there). The gateway held 39 MiB in those arenas idle, and what it holds
// outside the V8 heap is what varied most between loaded runs (docs/benchmark.md, "Gateway RSS on
// Node 24"). Two arenas took about 18 MiB off the gateway's RSS peak in the loaded phases of the
// benchmark (medians over four runs each, 238 -> 220 MiB) with no change in its CPU per request.
// Not the worker: there two arenas cost CPU per task in five of six loaded runs (up to 60%, malloc
// contention between libuv's pool and V8's helpers during downloads and hashing), and its memory
// targets hold without them.
// Also MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_ at glibc's own starting value (128 KiB),
// which fixes them: glibc otherwise raises the mmap threshold to the size of the largest block it
// has freed (up to 32 MiB), so after the first large bodies (socket reads, decoded inline files)
// every later block of that size came from the arenas and stayed there once freed. Fixed, blocks of
// 128 KiB and more are mapped and returned on free, and free memory at an arena's top is trimmed:
// the gateway's RSS in the submit, poll and pipeline phases fell from 221-225 to 204-208 MiB
// (docs/benchmark.md, "malloc's thresholds"). glibc reads these variables before main() runs, so
// they must be in the environment the process starts with; a value the operator set wins.
const APP_ENV: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'apps/gateway/src/main.ts': { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' },
};

/** The variables an app starts with beyond its configuration (none for other programs). */
export const appEnvFor = (entry: string): Record<string, string> => ({ ...(APP_ENV[entryKey(entry)] ?? {}) });
