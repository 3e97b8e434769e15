// The OpenAPI document lints clean under an independent linter (@redocly/cli, recommended rules,
// redocly.yaml at the root), and the SDK's committed types are exactly what openapi-typescript
// generates from it today, so neither can drift from the gateway.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApiDocument } from '../../apps/gateway/src/openapi/document';

const run = promisify(execFile);
const root = path.join(__dirname, '..', '..');
// Offline: no telemetry, no update check.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

describe('OpenAPI document', () => {
  const doc = buildOpenApiDocument('https://mediagen.test') as {
    paths: Record<string, Record<string, { operationId?: string; tags?: string[]; responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { example?: unknown }> }> }>>;
  };

  test('lints with no errors and no warnings under @redocly/cli', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    const out = await run(process.execPath, [require.resolve('@redocly/cli/bin/cli.js'), 'lint', '--config', path.join(root, 'redocly.yaml'), '--format', 'json', file], { env, cwd: root }).catch(
      (e: { stdout: string; stderr: string }) => e,
    );
    const report = JSON.parse(out.stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  test('every operation has an operationId, a tag, an example and X-Request-Id on every response', () => {
    const missing: string[] = [];
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${p}`;
        if (!op.operationId) missing.push(`${where}: operationId`);
        if (!op.tags?.length) missing.push(`${where}: tag`);
        const withExample = Object.values(op.responses).some((r) => Object.values(r.content ?? {}).some((c) => c.example !== undefined));
        if (!withExample && method !== 'head' && method !== 'delete') missing.push(`${where}: example`);
        for (const [status, r] of Object.entries(op.responses)) if (!r.headers?.['X-Request-Id']) missing.push(`${where} ${status}: X-Request-Id`);
      }
    }
    expect(missing).toEqual([]);
  });

  test('429s carry Retry-After, RateLimit and RateLimit-Policy; the poll and balance paths document them', () => {
    for (const p of ['/api/video/tasks/{taskId}', '/api/image/tasks/{taskId}', '/api/balance', '/api/video/generate', '/api/image/generate']) {
      const op = Object.values(doc.paths[p])[0];
      expect(Object.keys(op.responses['429']?.headers ?? {}).sort()).toEqual(['RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id']);
    }
  });

  test('the SDK types in packages/client/src/generated are regenerated from this document unchanged', async () => {
    const out = await run(process.execPath, [require.resolve('tsx/cli'), 'scripts/generate-client-types.ts', '--check'], { cwd: root, env }).catch((e: { code: number; stderr: string }) => e);
    expect('stderr' in out ? out.stderr : '').toBe('');
  }, 60_000);
});
