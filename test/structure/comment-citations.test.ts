// Comments say the rule itself. A comment (or a description string shown to users, such as the
// OpenAPI document's) that only points at "issue 11.3", "spec 4.2" or "design.md section 4" names
// something a reader of this repository does not have: the tracker's issues, the service spec and
// the design notes are not in it. Checked over the source of apps/*/src, packages/*/src, bench/,
// scripts/ and clients/ (TypeScript, JavaScript, Python, shell); generated code, fixtures and
// node_modules are left out. The documentation is checked by doc-references.test.ts.
//
// ALLOWED would list files allowed to keep citations, at their exact counts; it is empty now that
// every file states its rules, and an entry must match its file exactly, so the list only shrinks.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const SKIP_DIRS = new Set(['node_modules', 'generated', 'dist', '__fixtures__', 'fixtures', '__pycache__', '.venv']);
const CODE = /\.(ts|js|mjs|cjs|py|sh)$/;

/** "issue 12", "Issue 15.1", "issues 3", "spec 4.2", "Spec 8", "spec section 5", "design.md". */
const CITATION = /\b(?:issues? \d+(?:\.\d+)*|spec (?:sections? )?\d+(?:\.\d+)*|design\.md)/gi;

const ALLOWED: Record<string, number> = {};

function codeFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) out.push(...codeFiles(full));
    } else if (CODE.test(e.name) && !e.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

const rel = (f: string) => path.relative(ROOT, f).split(path.sep).join('/');

const FILES: string[] = [
  ...['apps', 'packages'].flatMap((g) => fs.readdirSync(path.join(ROOT, g)).flatMap((w) => codeFiles(path.join(ROOT, g, w, 'src')))),
  ...['bench', 'scripts', 'clients'].flatMap((d) => codeFiles(path.join(ROOT, d))),
].map(rel);

/** Each citation of a file as `path:line: text`. */
function citations(file: string): string[] {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  return lines.flatMap((line, i) => [...line.matchAll(CITATION)].map((m) => `${file}:${i + 1}: ${m[0]}`));
}

describe('comments say the rule, not an issue or spec number', () => {
  it('covers the apps, packages, bench, scripts and clients', () => {
    // A walk that found nothing would pass any rule: the tree has hundreds of such files.
    expect(FILES.length).toBeGreaterThan(300);
    for (const prefix of ['apps/gateway/src/', 'packages/catalog/src/', 'bench/', 'scripts/', 'clients/python/']) {
      expect(FILES.some((f) => f.startsWith(prefix))).toBe(true);
    }
  });

  it('the pattern finds the citations it is meant for and nothing else', () => {
    const found = (s: string) => [...s.matchAll(CITATION)].map((m) => m[0]);
    expect(found('// Results (issue 15 point 4) and Issue 11.3, spec 4.2 and Spec section 8 (design.md section 4)')).toEqual([
      'issue 15',
      'Issue 11.3',
      'spec 4.2',
      'Spec section 8',
      'design.md',
    ]);
    expect(found('// retries after 4 issues, the spec says 4 s; respec 2; tissue 3')).toEqual([]);
  });

  it('no file cites an issue, the spec or design.md outside the allow-list', () => {
    const offending = FILES.filter((f) => !(f in ALLOWED)).flatMap(citations);
    expect(offending).toEqual([]);
  });

  it('the allow-list holds each listed file at its exact count (lower it when a file is rewritten)', () => {
    const counts = Object.fromEntries(
      Object.keys(ALLOWED).map((f) => [f, fs.existsSync(path.join(ROOT, f)) ? citations(f).length : 'missing']),
    );
    expect(counts).toEqual(ALLOWED);
  });
});
