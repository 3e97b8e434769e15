// V8 lets the old generation grow to about four times what survives a full GC before it collects
// again. A gateway under load promotes a lot of short-lived request garbage (Node's HTTP objects
// outlive a scavenge or two under 64 connections), so its heap sat near 200 MB for about 45 MB of
// live data; a worker with 10,000 renders in flight promotes its step garbage the same way (RSS
// peak 322-353 MiB on Node 24, 242 MiB with this). Growing by 50% at a time keeps the heap near
// what is live for a few percent more GC time (docs/benchmark.md). The flag is read at every GC, so
// setting it at start takes effect.
import v8 from 'node:v8';

export function growHeapByHalf(): void {
  v8.setFlagsFromString('--heap-growing-percent=50');
}
