// Worker process entry point: BullMQ workers for tasks and maintenance, a health port, and a
// graceful SIGTERM (finish the running steps, then disconnect).
import '@mediagen/runtime/node-version'; // first: one readable line on a Node older than 24.11
import '@mediagen/runtime/source-maps'; // first: before any package loads
import { ConfigError, loadConfig } from '@mediagen/config';
import { growHeapByHalf, stopTranspilerThread } from '@mediagen/runtime';
import { startWorkerApp } from './worker-app';

growHeapByHalf(); // the old generation grows by half at a time (packages/runtime heap-growth.ts)

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await startWorkerApp(config);
  stopTranspilerThread(); // every module is loaded by now (packages/runtime)
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.ctx.log.info({ signal }, 'shutting down');
    app.stop().then(
      () => process.exit(0),
      (err) => {
        app.ctx.log.error({ err: (err as Error).message }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
