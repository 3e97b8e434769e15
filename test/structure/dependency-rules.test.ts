// The dependency rules of the workspace (CONTRIBUTING.md, "Where things live"), checked on every
// import of every file, tests included:
//   - a package (packages/*) never imports an app (apps/*);
//   - nothing reaches into another workspace's files: other workspaces are imported by package name,
//     through the subpaths their `exports` declare (no `@mediagen/x/src/...`, no `../../x/src`);
//   - a workspace declares every package it imports in its own manifest (dependencies for src/,
//     dependencies or devDependencies for test/ and bench/), so it installs and runs on its own;
//   - every manifest has `exports` whose targets exist, and no `main`/`types` pointing at nothing.
// Root-level tooling (test/, bench/, scripts/) is the cross-app harness: it may import an app's
// source by path, but packages only by name.
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
const CODE = /\.(ts|js|mjs|cjs)$/;
const SKIP_DIRS = new Set(['node_modules', 'generated', 'dist', '__fixtures__', 'fixtures']);
const BUILTINS = new Set(builtinModules);

interface Manifest {
  name: string;
  main?: string;
  types?: string;
  exports?: string | Record<string, unknown>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}

interface Workspace {
  dir: string; // relative to ROOT, e.g. packages/db
  kind: 'app' | 'package';
  manifest: Manifest;
}

const readJson = <T>(file: string): T => JSON.parse(fs.readFileSync(file, 'utf8')) as T;

function workspaces(): Workspace[] {
  const out: Workspace[] = [];
  for (const [group, kind] of [['apps', 'app'], ['packages', 'package']] as const) {
    for (const name of fs.readdirSync(path.join(ROOT, group))) {
      const file = path.join(ROOT, group, name, 'package.json');
      if (fs.existsSync(file)) out.push({ dir: `${group}/${name}`, kind, manifest: readJson<Manifest>(file) });
    }
  }
  return out;
}

function codeFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) out.push(...codeFiles(path.join(dir, e.name)));
    } else if (CODE.test(e.name) && !e.name.endsWith('.d.ts')) out.push(path.join(dir, e.name));
  }
  return out;
}

/** Every module specifier of a file: static and dynamic imports, re-exports, require(). */
export function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  // `declare module 'x' { ... }` augments types of a module (express's Request, say); it imports nothing.
  const augmented = new Set([...text.matchAll(/declare module ['"]([^'"]+)['"]/g)].map((m) => m[1]));
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName).filter((s) => !augmented.has(s));
}

/** `@scope/name/sub` -> [`@scope/name`, `./sub`]; `name/sub` -> [`name`, `./sub`]. */
function splitSpecifier(spec: string): [string, string] {
  const parts = spec.split('/');
  const n = spec.startsWith('@') ? 2 : 1;
  const rest = parts.slice(n).join('/');
  return [parts.slice(0, n).join('/'), rest ? `./${rest}` : '.'];
}

const exportKeys = (m: Manifest): string[] => (typeof m.exports === 'string' ? ['.'] : Object.keys(m.exports ?? {}));

/** Every file an `exports` entry points at (conditions flattened). */
function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(exportTargets);
  return [];
}

const within = (file: string, dir: string) => !path.relative(dir, file).startsWith('..');

interface Violation {
  file: string;
  spec: string;
  rule: string;
}

function checkImports(all: Workspace[]): Violation[] {
  const byName = new Map(all.map((w) => [w.manifest.name, w]));
  const root = readJson<Manifest>(path.join(ROOT, 'package.json'));
  const rootDeclared = new Set([...Object.keys(root.dependencies ?? {}), ...Object.keys(root.devDependencies ?? {})]);
  const violations: Violation[] = [];

  const checkWorkspaceName = (file: string, spec: string, target: Workspace, sub: string, from: Workspace | null) => {
    const rel = path.relative(ROOT, file);
    if (sub.startsWith('./src/') || sub === './src') violations.push({ file: rel, spec, rule: `deep import into ${target.dir}/src: import "${target.manifest.name}" or a subpath it exports` });
    else if (!exportKeys(target.manifest).includes(sub)) violations.push({ file: rel, spec, rule: `${target.manifest.name} does not export "${sub}"` });
    if (from?.kind === 'package' && target.kind === 'app') violations.push({ file: rel, spec, rule: `package ${from.manifest.name} imports app ${target.manifest.name}` });
  };

  // Files inside a workspace.
  for (const w of all) {
    const wsDir = path.join(ROOT, w.dir);
    const m = w.manifest;
    const runtime = new Set([...Object.keys(m.dependencies ?? {}), ...Object.keys(m.peerDependencies ?? {})]);
    const dev = new Set([...runtime, ...Object.keys(m.devDependencies ?? {})]);
    for (const file of codeFiles(wsDir)) {
      const rel = path.relative(ROOT, file);
      // Build configuration at the workspace's top (tsup.config.ts) is tooling, like tests.
      const isSrc = !/\/(test|bench)\//.test(`/${path.relative(wsDir, file)}`) && !/^[^/]+\.config\.ts$/.test(path.relative(wsDir, file));
      for (const spec of importsOf(file)) {
        if (spec.startsWith('node:') || BUILTINS.has(spec)) continue;
        if (spec.startsWith('.')) {
          const target = path.resolve(path.dirname(file), spec);
          if (within(target, wsDir)) continue;
          const other = all.find((o) => within(target, path.join(ROOT, o.dir)));
          // Tests may use the repository's shared test support (test/e2e/support, scripts/lib).
          if (!isSrc && (within(target, path.join(ROOT, 'test')) || within(target, path.join(ROOT, 'scripts/lib')))) continue;
          if (other) {
            const rule = w.kind === 'package' && other.kind === 'app' ? `package ${m.name} imports app ${other.manifest.name}` : `reaches into ${other.dir}: import "${other.manifest.name}" by name`;
            violations.push({ file: rel, spec, rule });
          } else violations.push({ file: rel, spec, rule: 'reaches outside its workspace' });
          continue;
        }
        const [name, sub] = splitSpecifier(spec);
        const declared = isSrc ? runtime : dev;
        if (name !== m.name && !declared.has(name))
          violations.push({ file: rel, spec, rule: `${name} is not declared in ${w.dir}/package.json (${isSrc ? 'dependencies' : 'dependencies or devDependencies'})` });
        const target = byName.get(name);
        if (target) checkWorkspaceName(file, spec, target, sub, w);
      }
    }
  }

  // Root-level tooling: packages by name only; apps may be driven from their source.
  for (const dir of ['test', 'bench', 'scripts']) {
    for (const file of codeFiles(path.join(ROOT, dir))) {
      const rel = path.relative(ROOT, file);
      for (const spec of importsOf(file)) {
        if (spec.startsWith('node:') || BUILTINS.has(spec)) continue;
        if (spec.startsWith('.')) {
          const target = path.resolve(path.dirname(file), spec);
          const other = all.find((o) => within(target, path.join(ROOT, o.dir)));
          if (other?.kind === 'package') violations.push({ file: rel, spec, rule: `reaches into ${other.dir}: import "${other.manifest.name}" by name` });
          continue;
        }
        const [name, sub] = splitSpecifier(spec);
        const target = byName.get(name);
        if (target) checkWorkspaceName(file, spec, target, sub, null);
        else if (!rootDeclared.has(name)) violations.push({ file: rel, spec, rule: `${name} is not declared in the root package.json` });
      }
    }
  }
  return violations;
}

function checkManifests(all: Workspace[]): string[] {
  const problems: string[] = [];
  for (const w of all) {
    const m = w.manifest;
    // A package packed for consumers (its prepack builds dist/) may point at dist/ before it is built.
    const exists = (p: string) => fs.existsSync(path.join(ROOT, w.dir, p)) || (Boolean(m.scripts?.prepack) && /^(\.\/)?dist\//.test(p));
    if (m.exports === undefined) problems.push(`${w.dir}: no "exports"`);
    for (const t of exportTargets(m.exports)) if (!exists(t)) problems.push(`${w.dir}: exports target ${t} does not exist`);
    if (m.main && !exists(m.main)) problems.push(`${w.dir}: main ${m.main} does not exist`);
    if (m.types && !exists(m.types)) problems.push(`${w.dir}: types ${m.types} does not exist`);
  }
  return problems;
}

const format = (vs: Violation[]) => vs.map((v) => `${v.file}: "${v.spec}": ${v.rule}`).join('\n');

describe('dependency rules', () => {
  const all = workspaces();

  it('finds the workspaces and reads imports of every kind', () => {
    expect(all.map((w) => w.dir)).toEqual(expect.arrayContaining(['apps/gateway', 'apps/worker', 'packages/db', 'packages/queue']));
    const probe = path.join(ROOT, 'test/structure/dependency-rules.test.ts');
    expect(importsOf(probe)).toEqual(expect.arrayContaining(['node:fs', 'typescript']));
  });

  it('every manifest declares exports whose files exist, and no main or types pointing at nothing', () => {
    expect(checkManifests(all)).toEqual([]);
  });

  it('no package imports an app, no import reaches into another workspace, every dependency is declared', () => {
    expect(format(checkImports(all))).toBe('');
  });
});
