// What other workspaces may use of the simulator: the server itself, for tests and benchmarks
// that run it in-process. Start it as a process with src/main.ts.
export { createSimServer, type SimOptions } from './sim-server';
export type { RenderStore } from './render-store';
