// Installs that CI systems and images use (`npm ci`), checked offline so a broken lock is caught
// before a fresh clone meets it:
//   - npm ci refuses a lock that misses an optional dependency of a locked package (the native
//     builds of other platforms): every optional dependency must have its own lock entry;
//   - every install script in the tree is either allowed or denied in package.json's allowScripts,
//     so installs print no install-script warning and no script runs unreviewed;
//   - the Dockerfile copies every workspace manifest before `npm ci` (a missing one fails the
//     build's sync check), and CI and the image both install with `npm ci`.
// The real proof is `git clone <repo> /tmp/x && cd /tmp/x && npm ci` (CONTRIBUTING.md).
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');

interface LockEntry {
  version?: string;
  link?: boolean;
  hasInstallScript?: boolean;
  optionalDependencies?: Record<string, string>;
}
const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockEntry> };
const manifest = JSON.parse(read('package.json')) as { workspaces: string[]; allowScripts?: Record<string, boolean> };

/** Node's lookup: the package's own node_modules, then each parent's, then the root's. */
function resolveFrom(location: string, name: string): string | undefined {
  let dir = location;
  for (;;) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!dir) return undefined;
    const i = dir.lastIndexOf('/node_modules/');
    dir = i >= 0 ? dir.slice(0, i) : '';
  }
}

const nameOf = (location: string) => location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);

it('the lock has an entry for every optional dependency of every locked package', () => {
  const missing: string[] = [];
  for (const [location, entry] of Object.entries(lock.packages)) {
    for (const dep of Object.keys(entry.optionalDependencies ?? {}))
      if (!resolveFrom(location, dep)) missing.push(`${location || '(root)'} -> ${dep}`);
  }
  expect(missing).toEqual([]);
});

it('every package with an install script is allowed or denied in allowScripts', () => {
  const decided = new Set(Object.keys(manifest.allowScripts ?? {}).map((k) => k.replace(/(.)@.*$/, '$1')));
  const undecided = Object.entries(lock.packages)
    .filter(([location, e]) => location && e.hasInstallScript && !e.link && !decided.has(nameOf(location)))
    .map(([location, e]) => `${nameOf(location)}@${e.version}`);
  expect([...new Set(undecided)]).toEqual([]);
});

it('the Dockerfile copies every workspace manifest, and CI and the image install with npm ci', () => {
  const dockerfile = read('Dockerfile');
  const workspaces = manifest.workspaces.flatMap((pattern) => {
    const base = pattern.replace(/\/\*$/, '');
    return fs.readdirSync(path.join(ROOT, base)).map((d) => `${base}/${d}`).filter((d) => fs.existsSync(path.join(ROOT, d, 'package.json')));
  });
  for (const ws of workspaces) expect(dockerfile).toContain(`COPY ${ws}/package.json ${ws}/`);
  expect(dockerfile).toMatch(/^RUN npm ci /m);
  expect(read('.ci/run')).toMatch(/^npm ci /m);
});
