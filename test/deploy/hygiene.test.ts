// Deployment hygiene, checked on the files themselves (no Docker engine on our machines): the
// build context is an allow-list, the image copies named folders only, production compose needs
// its secrets and a channel file, Redis requires a password, every launcher starts the apps with
// the same Node flags and environment, and the worker's counters need the admin token in production.
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { startHealthServer } from '../../apps/worker/src/health-server';
import { appEnvFor, nodeFlagsFor } from '../../scripts/lib/node-flags';
import { startProcess, stopProcess } from '../../scripts/lib/processes';

const ROOT = path.resolve(__dirname, '../..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');

describe('image and compose hygiene', () => {
  it('the build context is allow-listed and nothing is copied wholesale', () => {
    const ignore = read('.dockerignore').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    expect(ignore[0]).toBe('*');
    expect(ignore).not.toContain('!test/');
    const allowed = ignore.filter((l) => l.startsWith('!'));
    expect(allowed.filter((l) => /\btest\b|bench|\.key|\.ci\b|\.env|channels/i.test(l))).toEqual([]);
    expect(ignore).toContain('**/*.test.ts');
    expect(read('Dockerfile')).not.toMatch(/^COPY \. \./m);
  });
  it('production compose requires its secrets and the channel file, and Redis asks for a password', () => {
    const compose = read('docker-compose.yml');
    for (const v of ['ADMIN_TOKEN', 'POSTGRES_PASSWORD', 'REDIS_PASSWORD', 'PROVIDER_CONFIG']) expect(compose).toContain(`\${${v}:?`);
    expect(compose).not.toMatch(/POSTGRES_PASSWORD:-/);
    expect(compose).not.toMatch(/PROVIDER_CONFIG:-/);
    expect(compose).toContain('--requirepass');
    expect(compose).toMatch(/REDIS_URL: redis:\/\/:\$\{REDIS_PASSWORD/);
  });
  it('the image, compose and the operations guide start the gateway and the worker with the Node flags npm start and the benchmark use', () => {
    for (const app of ['gateway', 'worker']) {
      const entry = `apps/${app}/src/main.ts`;
      const flags = nodeFlagsFor(entry);
      expect(flags).toContain('--max-semi-space-size=16'); // the young generation of Node 20 (node-flags.ts)
      const argv = ['node', ...flags, '--import', 'tsx', entry];
      const exec = `[${argv.map((a) => JSON.stringify(a)).join(', ')}]`;
      if (app === 'gateway') expect(read('Dockerfile')).toContain(`CMD ${exec}`);
      expect(read('Dockerfile')).toContain(` ${argv.join(' ')}\n`); // the header's list of commands
      expect(read('docker-compose.yml')).toContain(`command: ${exec}`);
      expect(read('docs/operations.md')).toContain(`| ${app} | \`${argv.join(' ')}\` |`);
    }
  });
  it('the gateway starts with its malloc settings from compose, the operations guide and the launchers; the worker without them', () => {
    const compose = read('docker-compose.yml');
    const service = (name: string) => compose.slice(compose.indexOf(`\n  ${name}:\n`), compose.indexOf('\n\n', compose.indexOf(`\n  ${name}:\n`) + 1));
    const gateway = appEnvFor('apps/gateway/src/main.ts');
    // glibc's arenas and fixed thresholds (node-flags.ts)
    expect(gateway).toEqual({ MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' });
    for (const [name, value] of Object.entries(gateway)) {
      expect(service('gateway')).toContain(`${name}: \${${name}:-${value}}`);
      expect(service('worker')).not.toContain(name);
      expect(compose.slice(0, compose.indexOf('\nservices:'))).not.toContain(name); // not in the shared environment
      expect(read('docs/operations.md')).toContain(`\`${name}=${value}\``);
      // The image serves every app, so it does not set it; a bare `docker run` of the gateway passes it.
      const runtimeEnv = /FROM \S+ AS runtime\nENV ((?:.*\\\n)*.*)/.exec(read('Dockerfile'))?.[1] ?? '';
      expect(runtimeEnv).toContain('NODE_ENV=production');
      expect(runtimeEnv).not.toContain(name);
      expect(read('Dockerfile')).toContain(`-e ${name}=${value}`);
    }
    expect(appEnvFor('apps/worker/src/main.ts')).toEqual({});
    expect(appEnvFor('bench/floors/express-floor.ts')).toEqual({}); // floors measure bare Node
  });
  it('a gateway started by the launcher has that environment, unless the caller set its own value; a worker has none', async () => {
    const environOf = (pid: number) => Object.fromEntries(fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'hygiene-'));
    const inherited = process.env.MALLOC_ARENA_MAX;
    delete process.env.MALLOC_ARENA_MAX;
    try {
      for (const [entry, given, expected] of [
        ['apps/gateway/src/main.ts', undefined, '2'],
        ['apps/gateway/src/main.ts', '16', '16'],
        ['apps/worker/src/main.ts', undefined, undefined],
      ] as const) {
        const env: Record<string, string> = { LOG_LEVEL: 'warn' };
        if (given) env.MALLOC_ARENA_MAX = given;
        // spawn returns once the exec has happened, so the environment is readable at once; the
        // app itself need not start (it has no configuration here) and is stopped right after.
        const app = startProcess('app', entry, env, dir);
        try {
          const environ = environOf(app.child.pid!);
          expect(environ.MALLOC_ARENA_MAX).toBe(expected);
          const gateway = entry === 'apps/gateway/src/main.ts';
          expect([environ.MALLOC_MMAP_THRESHOLD_, environ.MALLOC_TRIM_THRESHOLD_]).toEqual(gateway ? ['131072', '131072'] : [undefined, undefined]);
        } finally {
          await stopProcess(app);
        }
      }
    } finally {
      if (inherited !== undefined) process.env.MALLOC_ARENA_MAX = inherited;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('worker /metrics and /stats in production', () => {
  it('need the admin token; /healthz says only whether it runs', async () => {
    const ctx = { stats: { secret: 1 }, metrics: { registry: new Registry() } } as never;
    const server = startHealthServer(ctx, 0, () => true, { token: 'admin-token-0123456789', required: true });
    await new Promise((r) => server.once('listening', r));
    const port = (server.address() as AddressInfo).port;
    const get = (p: string, auth?: string) =>
      new Promise<{ status: number; body: string }>((resolve) =>
        http.get({ port, path: p, headers: auth ? { Authorization: auth } : {} }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c)).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        }),
      );
    expect((await get('/metrics')).status).toBe(401);
    expect((await get('/stats')).status).toBe(401);
    expect((await get('/metrics', 'Bearer wrong')).status).toBe(401);
    expect((await get('/metrics', 'Bearer admin-token-0123456789')).status).toBe(200);
    const health = await get('/healthz');
    expect(health.status).toBe(200);
    expect(health.body).not.toContain('secret');
    server.close();
  });
});
