// A TCP proxy a test can cut and restore, to make Postgres or Redis "unreachable" for one process
// without touching the shared server every other test file uses.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Client connections accepted since the start (a pool's size shows here). */
  readonly accepted: number;
  url(scheme: string, rest?: string): string;
  /** `url` (a database or Redis URL) with its host and port replaced by this proxy's, all else kept. */
  via(url: string): string;
  /** Drops every open connection and refuses new ones. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port (after cut or freeze). */
  restore(): Promise<void>;
  /**
   * A partition: open connections stay open but carry nothing more, and new ones are accepted and
   * never answered. Unlike cut(), nothing fails fast: only a timeout notices. restore() lets new
   * connections through again; the frozen ones stay silent until close() (their state is gone,
   * as when a NAT or firewall forgot them), so only a client that gives up on them recovers.
   */
  freeze(): void;
  /** Connections opened since the last freeze() while frozen: a client that gave up on a silent one and tried again. */
  readonly acceptedWhileFrozen: number;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;
  let frozen = false;
  let accepted = 0;
  let acceptedWhileFrozen = 0;
  /** Connections caught by freeze(): silent until close(). */
  const blackholed = new Set<net.Socket>();
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer((client) => {
        accepted += 1;
        sockets.add(client);
        client.on('close', () => sockets.delete(client));
        client.on('error', () => undefined);
        if (frozen) {
          acceptedWhileFrozen++;
          blackholed.add(client);
          return void client.pause(); // accepted, never answered
        }
        const upstream = net.connect(targetPort, targetHost);
        for (const sock of [client, upstream]) {
          sockets.add(sock);
          sock.on('close', () => sockets.delete(sock));
          sock.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as net.AddressInfo).port;
        server = s;
        resolve();
      });
    });
  const stop = async () => {
    frozen = false;
    const s = server;
    server = null;
    for (const sock of sockets) sock.destroy();
    if (s) await new Promise<void>((r) => s.close(() => r()));
  };
  await listen();
  return {
    get port() {
      return port;
    },
    get accepted() {
      return accepted;
    },
    url: (scheme, rest = '') => `${scheme}://127.0.0.1:${port}${rest}`,
    via(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut: stop,
    async restore() {
      frozen = false;
      if (!server) await listen();
    },
    get acceptedWhileFrozen() {
      return acceptedWhileFrozen;
    },
    freeze() {
      frozen = true;
      acceptedWhileFrozen = 0;
      for (const sock of sockets) {
        sock.unpipe();
        sock.pause();
        blackholed.add(sock);
      }
    },
    async close() {
      await stop();
      for (const sock of blackholed) sock.destroy();
    },
  };
}
