// Gateway process: parse env once, build deps, serve, and drain on SIGTERM.
import { loadConfig, ConfigError } from '@mediagen/config';
import { createDeps, closeDeps } from './deps';
import { createApp } from './app';

async function main(): Promise<void> {
  const config = loadConfig();
  const deps = await createDeps(config);
  const app = createApp(deps);
  const server = app.listen(config.PORT, () => {
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : config.PORT;
    deps.log.info({ port }, `gateway listening on http://localhost:${port}`);
    process.send?.({ ready: true, port });
  });
  server.keepAliveTimeout = 65_000;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    deps.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const deadline = setTimeout(() => process.exit(1), config.SHUTDOWN_TIMEOUT_MS).unref();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
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
