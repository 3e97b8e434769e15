// Structure rules read from the source itself (CONTRIBUTING.md, "Where things live"), over every
// file under apps/*/src and packages/*/src:
//   - each vocabulary is declared once: the task statuses and the failure codes in
//     packages/catalog/src/task-vocabulary.ts, the attempt statuses in packages/db/src/statuses.ts.
//     A list (array, union type, Set, z.enum or SQL `IN (...)`) spelling one of those sets out again
//     elsewhere fails; import the constant (or the SQL fragment built from it) instead;
//   - data access lives in packages/db: a Prisma model call (`db.task.findMany`), a raw query
//     (`$queryRaw`, `$executeRaw`, `$transaction`), the pool helpers (`sql`, `sqlTransaction`,
//     `sqlPool`), a database driver of its own (`pg`, `@prisma/client`; type-only imports aside) or
//     an SQL statement on one of our tables anywhere else fails, with no exception list;
//   - the apps read no environment variable themselves: loadConfig (packages/config) parses them once;
//   - the apps keep no state keyed by their deps on the side (`new WeakMap`): what a gateway or a
//     worker keeps per process is built in createDeps / startWorkerApp and passed where needed;
//   - CONTRIBUTING.md's tree and the README's layout name every workspace;
//   - the import graph has no circles: a small walk over the relative imports of every workspace's
//     src/ (type-only imports included: a circle of types is still two files that cannot be read
//     alone), Tarjan's strongly connected components. `madge --circular` reports the same circles.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { OPEN_TASK_STATUSES, SETTLED_TASK_STATUSES, TASK_ERROR_CODES, TASK_STATUSES } from '@mediagen/catalog';
import { ATTEMPT_STATUSES, DELIVERY_STATUSES, OPEN_ATTEMPT_STATUSES } from '@mediagen/db';

const ROOT = path.resolve(__dirname, '../..');
const SKIP_DIRS = new Set(['node_modules', 'generated', 'dist', '__fixtures__', 'fixtures']);

function tsFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) out.push(...tsFiles(path.join(dir, e.name)));
    } else if (/\.ts$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(path.join(dir, e.name));
  }
  return out;
}

/** Every source file of the apps and packages (tests excluded: they may spell out what they assert). */
const SOURCES: string[] = ['apps', 'packages'].flatMap((g) =>
  fs.readdirSync(path.join(ROOT, g)).flatMap((w) => tsFiles(path.join(ROOT, g, w, 'src'))),
);
const rel = (f: string) => path.relative(ROOT, f).split(path.sep).join('/');
const parsed = new Map<string, ts.SourceFile>();
const sourceOf = (f: string): ts.SourceFile => {
  let s = parsed.get(f);
  if (!s) parsed.set(f, (s = ts.createSourceFile(f, fs.readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true)));
  return s;
};

function walk(node: ts.Node, visit: (n: ts.Node) => void): void {
  visit(node);
  node.forEachChild((c) => walk(c, visit));
}

const key = (values: Iterable<string>) => [...new Set(values)].sort().join(',');

describe('each vocabulary is declared once', () => {
  const VOCABULARIES: { name: string; values: readonly string[]; home: string }[] = [
    { name: 'task statuses', values: TASK_STATUSES, home: 'packages/catalog/src/task-vocabulary.ts' },
    { name: 'open task statuses', values: OPEN_TASK_STATUSES, home: 'packages/catalog/src/task-vocabulary.ts' },
    { name: 'settled task statuses', values: SETTLED_TASK_STATUSES, home: 'packages/catalog/src/task-vocabulary.ts' },
    { name: 'failure codes', values: TASK_ERROR_CODES, home: 'packages/catalog/src/task-vocabulary.ts' },
    { name: 'attempt statuses', values: ATTEMPT_STATUSES, home: 'packages/db/src/statuses.ts' },
    { name: 'open attempt statuses', values: OPEN_ATTEMPT_STATUSES, home: 'packages/db/src/statuses.ts' },
    { name: 'webhook delivery statuses', values: DELIVERY_STATUSES, home: 'packages/db/src/statuses.ts' },
  ];
  // The SDK (packages/client) ships to other programs on its own and declares the statuses it
  // reads from the API; the contract tests compare it with the API's schemas.
  const EXEMPT = new Set(['packages/client']);

  /** The string lists a file spells out: array literals, union types of literals, SQL `IN (...)` lists. */
  function lists(file: string): { values: string[]; line: number }[] {
    const sf = sourceOf(file);
    const out: { values: string[]; line: number }[] = [];
    const line = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart()).line + 1;
    walk(sf, (n) => {
      if (ts.isArrayLiteralExpression(n) && n.elements.length >= 2 && n.elements.every(ts.isStringLiteralLike)) {
        out.push({ values: n.elements.map((e) => (e as ts.StringLiteralLike).text), line: line(n) });
      } else if (ts.isUnionTypeNode(n) && n.types.length >= 2 && n.types.every((t) => ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal))) {
        out.push({ values: n.types.map((t) => ((t as ts.LiteralTypeNode).literal as ts.StringLiteral).text), line: line(n) });
      } else if (ts.isStringLiteralLike(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) {
        for (const m of n.text.matchAll(/\bIN\s*\(\s*('[a-z_]+'(?:\s*,\s*'[a-z_]+')*)\s*\)/gi))
          out.push({ values: [...m[1].matchAll(/'([a-z_]+)'/g)].map((v) => v[1]), line: line(n) });
      }
    });
    return out;
  }

  it('declares the vocabularies where this test expects them', () => {
    for (const v of VOCABULARIES) expect(fs.existsSync(path.join(ROOT, v.home))).toBe(true);
  });

  it('spells no vocabulary out a second time', () => {
    const found: string[] = [];
    for (const file of SOURCES) {
      const r = rel(file);
      if ([...EXEMPT].some((d) => r.startsWith(`${d}/`))) continue;
      for (const l of lists(file)) {
        for (const v of VOCABULARIES) {
          if (r !== v.home && key(l.values) === key(v.values))
            found.push(`${r}:${l.line} writes the ${v.name} again; import them from ${v.home}`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('catches a redeclared list (the check itself works)', () => {
    const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vocabulary-probe-')), 'probe.ts');
    fs.writeFileSync(tmp, "const A = new Set(['running', 'succeeded', 'submitting']);\nexport type S = 'failed' | 'completed' | 'processing' | 'pending';\nconst q = `WHERE status IN ('pending', 'processing')`;\n");
    try {
      expect(lists(tmp).map((l) => key(l.values))).toEqual([key(OPEN_ATTEMPT_STATUSES), key(TASK_STATUSES), key(OPEN_TASK_STATUSES)]);
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  });
});

describe('data access lives in packages/db', () => {
  /** Prisma's delegate names: the schema's models with a lower-case first letter. */
  const MODELS = new Set(
    [...fs.readFileSync(path.join(ROOT, 'prisma/schema.prisma'), 'utf8').matchAll(/^model (\w+)/gm)].map((m) => m[1][0].toLowerCase() + m[1].slice(1)),
  );
  const TABLES = [...MODELS].map((m) => m[0].toUpperCase() + m.slice(1));
  const RAW = new Set(['$queryRaw', '$queryRawUnsafe', '$executeRaw', '$executeRawUnsafe', '$transaction']);
  /** Prisma's model delegate methods (so `body.account.trim()` is not taken for a query). */
  const METHODS = new Set([
    'findUnique', 'findUniqueOrThrow', 'findFirst', 'findFirstOrThrow', 'findMany', 'create', 'createMany', 'createManyAndReturn',
    'update', 'updateMany', 'updateManyAndReturn', 'upsert', 'delete', 'deleteMany', 'count', 'aggregate', 'groupBy',
  ]);
  const DRIVERS = new Set(['pg', 'pg-pool', '@prisma/client', '@prisma/adapter-pg']);
  const SQL_TEXT = new RegExp(`\\b(SELECT\\b[\\s\\S]*\\bFROM|INSERT INTO|UPDATE|DELETE FROM)\\s+"(${TABLES.join('|')})"`);

  /** The places in a file that reach the database without packages/db. */
  function accesses(file: string): string[] {
    const sf = sourceOf(file);
    const out: string[] = [];
    const line = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart()).line + 1;
    const fromDb = new Set<string>();
    walk(sf, (n) => {
      if (!ts.isImportDeclaration(n) || !ts.isStringLiteral(n.moduleSpecifier)) return;
      const from = n.moduleSpecifier.text;
      // A driver of one's own (a pg pool or client, a Prisma client) reaches the database without packages/db.
      if (DRIVERS.has(from) && !n.importClause?.isTypeOnly) out.push(`${line(n)}: import from ${from}`);
      const named = n.importClause?.namedBindings;
      if (from === '@mediagen/db' && named && ts.isNamedImports(named))
        for (const e of named.elements) {
          const name = (e.propertyName ?? e.name).text;
          if (['sql', 'sqlTransaction'].includes(name)) fromDb.add(e.name.text);
          else if (name === 'sqlPool') out.push(`${line(n)}: import of sqlPool`);
        }
    });
    walk(sf, (n) => {
      if (ts.isPropertyAccessExpression(n)) {
        const name = n.name.text;
        if (RAW.has(name)) out.push(`${line(n)}: ${name}`);
        else if (METHODS.has(name) && ts.isCallExpression(n.parent) && n.parent.expression === n && ts.isPropertyAccessExpression(n.expression) && MODELS.has(n.expression.name.text))
          out.push(`${line(n)}: .${n.expression.name.text}.${name}(...)`);
      } else if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && fromDb.has(n.expression.text)) {
        out.push(`${line(n)}: ${n.expression.text}(...)`);
      } else if ((ts.isStringLiteralLike(n) || ts.isTemplateHead(n)) && SQL_TEXT.test(n.text)) {
        out.push(`${line(n)}: SQL ${n.text.trim().slice(0, 40)}...`);
      }
    });
    return out;
  }

  it('has no direct Prisma call or SQL outside packages/db', () => {
    const found: string[] = [];
    for (const file of SOURCES) {
      const r = rel(file);
      if (r.startsWith('packages/db/')) continue;
      const hits = accesses(file);
      if (hits.length) found.push(`${r}:\n  ${hits.join('\n  ')}`);
    }
    expect(found).toEqual([]);
  });

  it('catches a direct call (the check itself works)', () => {
    const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'db-probe-')), 'probe.ts');
    fs.writeFileSync(
      tmp,
      "import { sql as q } from '@mediagen/db';\nexport const a = (db: any) => db.task.findMany({});\nexport const b = (db: any) => db.$queryRaw`SELECT 1`;\nexport const c = (db: any) => q(db, 'SELECT 1');\nexport const d = 'UPDATE \"Task\" SET x = 1';\nimport { Pool } from 'pg';\nimport { sqlPool } from '@mediagen/db';\nimport type { PoolClient } from 'pg';\n",
    );
    try {
      expect(accesses(tmp)).toHaveLength(6);
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  });
});

describe("the apps' per-process state is built with their deps", () => {
  /** Where a file makes a WeakMap (the shape of a singleton keyed by deps, built on first use). */
  function weakMaps(file: string): number[] {
    const sf = sourceOf(file);
    const out: number[] = [];
    walk(sf, (n) => {
      if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'WeakMap')
        out.push(sf.getLineAndCharacterOfPosition(n.getStart()).line + 1);
    });
    return out;
  }

  it('makes no WeakMap in apps/*/src: createDeps (gateway) and startWorkerApp (worker) build that state', () => {
    const found = SOURCES.filter((f) => rel(f).startsWith('apps/')).flatMap((f) => weakMaps(f).map((l) => `${rel(f)}:${l}`));
    expect(found).toEqual([]);
  });

  it('finds a WeakMap (the check itself works)', () => {
    const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'weakmap-probe-')), 'probe.ts');
    fs.writeFileSync(tmp, 'const byDeps = new WeakMap<object, number>();\nexport const one = (d: object) => byDeps.get(d);\n');
    try {
      expect(weakMaps(tmp)).toEqual([1]);
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  });
});

describe('the apps read settings through packages/config', () => {
  /** `process.env` read in code (a mention inside a string, such as a README snippet, is not a read). */
  function envReads(file: string): number[] {
    const sf = sourceOf(file);
    const out: number[] = [];
    walk(sf, (n) => {
      if (ts.isPropertyAccessExpression(n) && n.name.text === 'env' && ts.isIdentifier(n.expression) && n.expression.text === 'process')
        out.push(sf.getLineAndCharacterOfPosition(n.getStart()).line + 1);
    });
    return out;
  }

  it('reads no environment variable in apps/*/src (the simulator included)', () => {
    const found = SOURCES.filter((f) => rel(f).startsWith('apps/')).flatMap((f) => envReads(f).map((l) => `${rel(f)}:${l}`));
    expect(found).toEqual([]);
  });
});

describe('the layouts in the docs list every workspace', () => {
  const dirs = ['apps', 'packages'].flatMap((g) => fs.readdirSync(path.join(ROOT, g)).filter((w) => fs.existsSync(path.join(ROOT, g, w, 'package.json'))).map((w) => [g, w] as const));

  it("CONTRIBUTING.md's tree and the README's layout name every app and package", () => {
    const contributing = fs.readFileSync(path.join(ROOT, 'CONTRIBUTING.md'), 'utf8');
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const missing = dirs.flatMap(([g, w]) => [
      ...(new RegExp(`^\\s+${w}/\\s`, 'm').test(contributing) ? [] : [`CONTRIBUTING.md: ${g}/${w}`]),
      ...(readme.includes(`${g}/${w} `) ? [] : [`README.md: ${g}/${w}`]),
    ]);
    expect(missing).toEqual([]);
  });
});

describe('the import graph has no circles', () => {
  /** Relative imports of each file, resolved to files (`./x`, `./x.ts`, `./x/index.ts`). */
  function graph(files: string[]): Map<string, string[]> {
    const known = new Set(files);
    const g = new Map<string, string[]>();
    for (const f of files) {
      const info = ts.preProcessFile(fs.readFileSync(f, 'utf8'), true, true);
      const deps: string[] = [];
      for (const i of info.importedFiles) {
        if (!i.fileName.startsWith('.')) continue;
        const base = path.resolve(path.dirname(f), i.fileName);
        const hit = [base, `${base}.ts`, path.join(base, 'index.ts'), base.replace(/\.js$/, '.ts')].find((c) => known.has(c));
        if (hit) deps.push(hit);
      }
      g.set(f, deps);
    }
    return g;
  }

  /** The circles: strongly connected components of more than one file (or a file importing itself). */
  function circles(g: Map<string, string[]>): string[][] {
    let next = 0;
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const out: string[][] = [];
    const visit = (v: string) => {
      index.set(v, next);
      low.set(v, next++);
      stack.push(v);
      onStack.add(v);
      for (const w of g.get(v) ?? []) {
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) === index.get(v)) {
        const c: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          c.push(w);
        } while (w !== v);
        if (c.length > 1 || (g.get(v) ?? []).includes(v)) out.push(c.map(rel).sort());
      }
    };
    for (const v of g.keys()) if (!index.has(v)) visit(v);
    return out;
  }

  it('finds no circle in any workspace', () => {
    expect(circles(graph(SOURCES))).toEqual([]);
  });

  it('finds a circle of type-only imports (the check itself works)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cycle-probe-'));
    try {
      fs.writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './b';\nexport type A = { b?: B };\n");
      fs.writeFileSync(path.join(dir, 'b.ts'), "import type { A } from './a';\nexport type B = { a?: A };\n");
      const files = ['a.ts', 'b.ts'].map((f) => path.join(dir, f));
      expect(circles(graph(files))).toHaveLength(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
