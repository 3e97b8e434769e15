// Gateway process: parse env once, build deps, serve, and drain on SIGTERM.
import '@mediagen/runtime/node-version'; // first: one readable line on a Node older than 24.11
import '@mediagen/runtime/source-maps'; // first: before any package loads
import { loadConfig, ConfigError } from '@mediagen/config';
import { createDeps, closeDeps } from './deps';
import { createApp } from './app';
import { createGatewayServer } from './server';
import { growHeapByHalf, stopTranspilerThread } from '@mediagen/runtime';

growHeapByHalf(); // the old generation grows by half at a time (packages/runtime heap-growth.ts)

async function main(): Promise<void> {
  const config = loadConfig();
  const deps = await createDeps(config);
  const app = createApp(deps);
  // The server's one request listener: cached polls answered from memory, then the Express app.
  const server = createGatewayServer(deps, app);
  server.listen(config.PORT, () => {
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : config.PORT;
    deps.log.info({ port }, `gateway listening on http://localhost:${port}`);
    stopTranspilerThread(); // every module is loaded by now (packages/runtime)
    process.send?.({ ready: true, port });
  });
  server.keepAliveTimeout = 65_000;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    deps.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // Event streams never finish by themselves: end them now (clients resume elsewhere with Last-Event-ID).
    deps.taskStreams.closeAll();
    const deadline = setTimeout(() => process.exit(1), config.SHUTDOWN_TIMEOUT_MS).unref();
    // Requests that still arrive on open keep-alive connections are served, and told to close.
    // Before the app's own listener: a response it writes synchronously has its headers sent already.
    server.prependListener('request', (_req, res) => res.setHeader('Connection', 'close'));
    // server.close() closes the connections idle at that moment only; a keep-alive connection whose
    // response finishes later would hold the close (and the exit) until the client or the 65 s
    // keep-alive timeout dropped it. Closing idle connections every 100 ms lets the process exit
    // right after its last in-flight response.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    clearInterval(sweep);
    await closeDeps(deps);
    clearTimeout(deadline);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  // eslint-disable-next-line no-console
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
