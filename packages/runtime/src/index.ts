// What every app does at start to hold less memory (docs/benchmark.md, "Gateway RSS on Node 24"):
// import '@mediagen/runtime/source-maps' first thing in main.ts, call growHeapByHalf() at start and
// stopTranspilerThread() once the app's modules are loaded.
export { stopTranspilerThread } from './transpiler-thread';
export { growHeapByHalf } from './heap-growth';
