// What other workspaces may use of the simulator: the server itself, for tests and benchmarks
// that run it in-process. Start it as a process with src/main.ts.
export { createSimServer, type SimOptions } from './sim-server';
export type { RenderStore } from './render-store';
// The bytes of a large (#sim:result-mib) video, for tests that compare a stored result with its source.
export { mp4File, paddedBytes, paddedMp4 } from './media-files';
