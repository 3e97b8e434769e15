// Floor for the poll figure: a bare Express 5 route on this machine, answering a small JSON body
// like a poll's, with nothing else (no logging, auth, limits or storage). Serves until SIGTERM.
import express from 'express';

const app = express();
app.disable('x-powered-by');
app.get('/api/image/tasks/:taskId', (_req, res) => {
  res.json({ status: 'pending', type: 'image' });
});
app.get('/healthz', (_req, res) => res.json({ status: 'ok' }));
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
