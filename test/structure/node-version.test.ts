// One supported Node everywhere. Node 20 reached end of life in April 2026; CI, the
// tests, the benchmark and the image run on Node 24 LTS. The version is written in several places
// (the CI script that fetches it, engines, .nvmrc, @types/node, the Dockerfile's base images), so a
// move that forgets one of them fails here rather than in someone's image or editor.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MIN_NODE, nodeTooOld } from '@mediagen/runtime/node-version';

const ROOT = path.resolve(__dirname, '../..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');
const SCRIPT = path.join(ROOT, 'scripts/ci/node-lts.sh');

const pinned = /^MEDIAGEN_NODE_VERSION=(\d+)\.(\d+)\.(\d+)$/m.exec(read('scripts/ci/node-lts.sh'));
const major = Number(pinned?.[1]);

it('CI fetches a pinned Node LTS, and engines, .nvmrc, @types/node and the Dockerfile name the same major', () => {
  expect(pinned).not.toBeNull();
  expect(major).toBeGreaterThanOrEqual(22);
  expect(major % 2).toBe(0); // even majors are the LTS lines

  const manifests = ['package.json', ...['apps', 'packages'].flatMap((d) => fs.readdirSync(path.join(ROOT, d)).map((w) => `${d}/${w}/package.json`))].filter(
    (f) => fs.existsSync(path.join(ROOT, f)),
  );
  const root = JSON.parse(read('package.json')) as { engines?: { node?: string }; devDependencies: Record<string, string> };
  expect(root.engines?.node).toMatch(new RegExp(`^>=${major}\\.\\d+$`));
  // The pinned build satisfies the floor engines states.
  const floorMinor = Number(/^>=\d+\.(\d+)$/.exec(root.engines!.node!)![1]);
  expect(Number(pinned![2])).toBeGreaterThanOrEqual(floorMinor);
  for (const f of manifests) {
    const engines = (JSON.parse(read(f)) as { engines?: { node?: string } }).engines;
    // The SDK is built for consumers (dist/, Node 20+; it needs only fetch and AbortSignal.any).
    if (f === 'packages/client/package.json') expect(engines?.node).toMatch(/^>=20\.\d+$/);
    else if (engines?.node) expect([f, engines.node]).toEqual([f, root.engines!.node]);
  }
  expect(root.devDependencies['@types/node']).toMatch(new RegExp(`^\\^${major}\\.`));
  expect(read('.nvmrc').trim()).toBe(String(major));

  const images = [...read('Dockerfile').matchAll(/^FROM (\S+)/gm)].map((m) => m[1]).filter((i) => !/^[a-z]+$/.test(i));
  expect(images.length).toBeGreaterThan(0);
  for (const image of images) expect(image).toMatch(new RegExp(`^node:${major}-`));
});

it('CI puts that Node on PATH before it installs or runs anything', () => {
  const ci = read('.ci/run');
  const sourced = ci.search(/^source scripts\/ci\/node-lts\.sh$/m);
  expect(sourced).toBeGreaterThan(0);
  expect(sourced).toBeLessThan(ci.search(/^npm ci /m));
});

describe('scripts/ci/node-lts.sh picks the Node', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'node-lts-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A `node` on PATH that answers `-v` with the given version. */
  function fakeNode(version: string): string {
    const bin = path.join(dir, `fake-${version}`);
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'node'), `#!/bin/sh\necho ${version}\n`, { mode: 0o755 });
    return bin;
  }
  const run = (bin: string, cache: string) =>
    execFileSync('bash', [SCRIPT], { env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, MEDIAGEN_NODE_CACHE: cache }, encoding: 'utf8' }).trim();

  it('keeps the machine Node when it is that major or newer', () => {
    const bin = fakeNode(`v${major + 2}.1.0`);
    expect(run(bin, path.join(dir, 'unused-cache'))).toBe(bin);
    expect(fs.existsSync(path.join(dir, 'unused-cache'))).toBe(false);
  });

  it('uses the cached download when the machine Node is older, without fetching again', () => {
    if (os.platform() !== 'linux' || !['x64', 'arm64'].includes(os.arch())) return;
    const cache = path.join(dir, 'cache');
    const cached = path.join(cache, `node-v${pinned![1]}.${pinned![2]}.${pinned![3]}-linux-${os.arch()}`, 'bin');
    fs.mkdirSync(cached, { recursive: true });
    fs.writeFileSync(path.join(cached, 'node'), '#!/bin/sh\n', { mode: 0o755 });
    // npm would run on the fake node, so a fetch would fail: the answer must come from the cache.
    expect(run(fakeNode('v20.20.2'), cache)).toBe(cached);
  });
});

describe('every entry point stops with one readable line on an older Node', () => {
  // The machine's own Node (20 on our CI machines) when it is older than the floor; the check itself
  // is covered for any Node by nodeTooOld below.
  const oldNode = ['/usr/bin/node', '/usr/local/bin/node', '/bin/node'].find((p) => {
    try {
      return fs.existsSync(p) && nodeTooOld(execFileSync(p, ['-v'], { encoding: 'utf8' }).trim()) !== undefined;
    } catch {
      return false;
    }
  });
  const entries = [
    'scripts/start.ts',
    'scripts/operator.ts',
    'scripts/prepare-db.ts',
    'apps/gateway/src/main.ts',
    'apps/worker/src/main.ts',
    'apps/provider-sim/src/main.ts',
    'bench/run.ts',
  ];

  it('MIN_NODE is the floor that engines states', () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    expect(engines).toBe(`>=${MIN_NODE.major}.${MIN_NODE.minor}`);
    expect(nodeTooOld('v20.20.2')).toMatch(/needs Node 24\.11 or newer .*source scripts\/ci\/node-lts\.sh/);
    expect(nodeTooOld('v24.10.0')).toBeDefined();
    expect(nodeTooOld('v24.11.0')).toBeUndefined();
    expect(nodeTooOld('v26.0.0')).toBeUndefined();
  });

  it('imports the check before anything else', () => {
    for (const f of entries) {
      const firstImport = /^import .*$/m.exec(read(f))?.[0];
      expect([f, firstImport]).toEqual([f, expect.stringContaining("'@mediagen/runtime/node-version'")]);
    }
  });

  (oldNode ? it : it.skip)(`run on the machine's old Node (${oldNode ?? 'none here'}), each says so and exits 1`, () => {
    for (const f of entries) {
      const r = spawnSync(oldNode!, ['--import', 'tsx', path.join(ROOT, f)], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NODE_ENV: 'development' } });
      expect([f, r.status, r.stderr.trim()]).toEqual([f, 1, expect.stringMatching(/^mediagen needs Node 24\.11 or newer \(this is Node v\d+[.\d]*\); run `source scripts\/ci\/node-lts\.sh`/)]);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
