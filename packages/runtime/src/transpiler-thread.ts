// The apps run their TypeScript through tsx (no second build output: see the Dockerfile). tsx
// compiles a file with esbuild's synchronous API the first time it meets it (later starts read its
// on-disk cache), and esbuild serves that API from a worker thread it then keeps for the life of the
// process: a second V8 isolate, about 25 MiB of RSS, idle once start-up has loaded the modules. A
// fresh container starts with an empty cache, so every gateway and worker in production carried it
// (docs/benchmark.md, "Gateway RSS on Node 24"). Stopping esbuild frees the thread; a module first
// loaded later would start a new one on demand, and a later stop frees that one too.
import { createRequire } from 'node:module';

export function stopTranspilerThread(): void {
  try {
    // tsx's own esbuild (the instance that holds the thread), whatever `esbuild` would resolve to here.
    const esbuild = createRequire(require.resolve('tsx'))('esbuild') as { stop: () => Promise<void> };
    void esbuild.stop();
  } catch {
    // Not started through tsx (a build, a test runner): there is no such thread.
  }
}
