// docker-compose.yml is checked by scripts/check-compose.sh with the compose tool itself (there is
// no Docker engine on our machines, only the client). Runs only where a compose tool is installed:
// `docker compose` (v2 plugin) or Debian's `docker-compose`.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const SCRIPT = path.join(ROOT, 'scripts/check-compose.sh');
const hasCompose =
  spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0 ||
  spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0;

(hasCompose ? describe : describe.skip)('docker-compose.yml', () => {
  it('is accepted by the compose tool and keeps the deployment rules (scalable worker, healthchecks, persistence)', () => {
    const out = execFileSync('bash', [SCRIPT, '--require'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(out).toMatch(/check-compose: OK/);
  });

  it('refuses a worker that publishes a host port (it could not be scaled)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-compose-'));
    try {
      const bad = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8').replace(/^ {2}worker:\n/m, '  worker:\n    ports: ["3001:3001"]\n');
      fs.writeFileSync(path.join(dir, 'docker-compose.yml'), bad);
      const r = spawnSync('bash', [SCRIPT, '--require'], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, CHECK_COMPOSE_FILE: path.join(dir, 'docker-compose.yml') },
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('worker publishes host ports');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
