// What a gateway loads at start is memory it holds for its whole life (module sources and their
// compiled code: about 21 MiB of idle RSS for the packages below). Packages only some deployments
// or some rare requests use are loaded where they are first needed (docs/benchmark.md, "Modules
// loaded on first use"); this keeps a static import from bringing one of them back at start.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

/** Loaded on first use: with Stripe settings, SMTP_URL, STORAGE_DRIVER=s3, a reference video or audio measured, a request to /admin/queues or /openapi.json. */
const ON_FIRST_USE = ['stripe', 'nodemailer', '@aws-sdk/client-s3', '@aws-sdk/lib-storage', 'music-metadata', 'mp4box', '@bull-board/api', '@bull-board/express', '@asteasolutions/zod-to-openapi'];

test('the modules of the gateway load none of the packages it loads on first use', () => {
  // A fresh process, the way the gateway starts (node --import tsx), importing what main.ts imports.
  const script = `
    require('./apps/gateway/src/app.ts');
    require('./apps/gateway/src/deps.ts');
    process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  const loaded = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' })) as string[];
  const packageOf = (file: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file.slice(file.lastIndexOf('node_modules/')))?.[1];
  const early = [...new Set(loaded.map(packageOf))].filter((p) => p && ON_FIRST_USE.includes(p));
  expect(early).toEqual([]);
  // The import reached the gateway's own modules (a broken script would load nothing and pass).
  expect(loaded.some((f) => f.endsWith(path.join('apps', 'gateway', 'src', 'routes', 'api.routes.ts')))).toBe(true);
  expect(loaded.some((f) => f.includes(`${path.sep}openapi${path.sep}`))).toBe(false);
}, 60_000);
