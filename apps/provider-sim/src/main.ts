// Provider simulator entry point: one process that acts as every channel of the channel config.
import '@mediagen/runtime/node-version'; // first: one readable line on a Node older than 24.11
import { loadConfig } from '@mediagen/config';
import { loadChannelConfig } from '@mediagen/providers';
import { createSimServer } from './sim-server';

const config = loadConfig();
const { server } = createSimServer({
  channels: loadChannelConfig(config),
  renderMs: config.SIM_RENDER_MS,
  latencyMs: config.SIM_LATENCY_MS,
  retiredModels: config.SIM_RETIRED_MODELS,
  falWebhookKey: config.SIM_FAL_WEBHOOK_KEY,
  replicateWebhookSecret: config.SIM_REPLICATE_WEBHOOK_SECRET,
});
server.listen(config.SIM_PORT, () => {
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.SIM_PORT;
  console.log(JSON.stringify({ app: 'provider-sim', msg: 'listening', port }));
});

const stop = () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 2_000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
