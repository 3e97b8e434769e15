// Issue 15.10: one supported Node everywhere. Node 20 reached end of life in April 2026; CI, the
// tests, the benchmark and the image run on Node 24 LTS. The version is written in several places
// (the CI script that fetches it, engines, .nvmrc, @types/node, the Dockerfile's base images), so a
// move that forgets one of them fails here rather than in someone's image or editor.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

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
