// Every reference in the documentation resolves inside this repository (issue: docs pointed at
// "design.md section 4" and "the project's provider notes, §1 and §4", files a reader of the
// repository does not have). Checked in docs/, the READMEs, CONTRIBUTING.md and the example config:
//   - markdown links to local files exist, and their #anchors match a heading of the target
//     (GitHub's slugs);
//   - a file named in the text (`operations.md`, `docs/api.md`, `packages/client/README.md`)
//     exists, next to the document, at the repository root or in docs/;
//   - "section N" (of a named file, or of the document itself) and "<file>.md N.M" name a
//     numbered heading that exists;
//   - no pointers to material outside the repository ("§", "provider notes").
// Fenced code blocks are left out: they show commands and output, not references.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

function documents(): string[] {
  const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  const readmes = ['packages', 'apps', 'clients']
    .filter((d) => fs.existsSync(path.join(ROOT, d)))
    .flatMap((d) => fs.readdirSync(path.join(ROOT, d)).map((w) => `${d}/${w}/README.md`))
    .filter((f) => fs.existsSync(path.join(ROOT, f)));
  const configs = fs.readdirSync(path.join(ROOT, 'config')).filter((f) => f.endsWith('.json')).map((f) => `config/${f}`);
  return ['README.md', 'CONTRIBUTING.md', ...docs, ...readmes, ...configs];
}

/** Fenced blocks blanked out, their lines kept so line numbers stay right. */
const withoutCode = (text: string): string => text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, (block) => block.replace(/[^\n]/g, ''));

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function headings(file: string): string[] {
  return withoutCode(fs.readFileSync(file, 'utf8'))
    .split('\n')
    .filter((l) => /^#{1,6} /.test(l))
    .map((l) => l.replace(/^#+ /, ''));
}

function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headings(file)) {
    const s = slug(h);
    const n = seen.get(s) ?? 0;
    out.add(n ? `${s}-${n}` : s);
    seen.set(s, n + 1);
  }
  return out;
}

/** Whether `file` has a heading numbered `number` ("4", "4.2", "3b"). */
const hasSection = (file: string, number: string): boolean => headings(file).some((h) => new RegExp(`^${number.replace('.', '\\.')}(\\.|\\s|$)`).test(h));

/** A file name as the text gives it: next to the document, at the root, or in docs/. */
function locate(doc: string, name: string): string | undefined {
  const candidates = [path.resolve(path.dirname(path.join(ROOT, doc)), name), path.resolve(ROOT, name), path.resolve(ROOT, 'docs', name)];
  return candidates.find((c) => fs.existsSync(c));
}

function problemsOf(doc: string): string[] {
  const abs = path.join(ROOT, doc);
  const text = doc.endsWith('.md') ? withoutCode(fs.readFileSync(abs, 'utf8')) : fs.readFileSync(abs, 'utf8');
  const out: string[] = [];
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;

  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1];
    if (/^(https?:|mailto:)/.test(target)) continue;
    const [file, anchor] = target.split('#');
    const resolved = file ? path.resolve(path.dirname(abs), file) : abs;
    if (!fs.existsSync(resolved)) out.push(`${doc}:${lineOf(m.index!)}: link to ${target}: no such file`);
    else if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) out.push(`${doc}:${lineOf(m.index!)}: link to ${target}: no heading with that anchor`);
  }
  for (const m of text.matchAll(/(?<![\w/.-])((?:[\w.-]+\/)*[\w.-]+\.md)\b`?(?:\s+section\s+(\d+[a-z]?(?:\.\d+)?)|\s+(\d+\.\d+)\b)?/g)) {
    if (/https?:\/\/\S*$/.test(text.slice(Math.max(0, m.index! - 200), m.index))) continue; // part of a URL
    const found = locate(doc, m[1]);
    if (!found) {
      out.push(`${doc}:${lineOf(m.index!)}: names ${m[1]}, which is not in the repository`);
      continue;
    }
    const section = m[2] ?? m[3];
    if (section && !hasSection(found, section)) out.push(`${doc}:${lineOf(m.index!)}: ${m[0]}: ${m[1]} has no section ${section}`);
  }
  if (doc.endsWith('.md')) {
    // "section N" of the document itself: not preceded by a file name (checked above) or "spec".
    for (const m of text.matchAll(/(?<!spec\s)(?<!\]\()\bsection (\d+[a-z]?)(?:\.(\d+))?\b/g)) {
      const number = m[2] ? `${m[1]}.${m[2]}` : m[1];
      // A link's text ("[operations.md section 7](...)") is checked through its target.
      const before = text.slice(Math.max(0, m.index! - 80), m.index);
      if (/\[[^\]]*$/.test(before)) continue;
      if (/\.md`?\s+$/.test(before)) continue; // "operations.md` section 5" across a line break: checked above
      if (!hasSection(abs, number)) out.push(`${doc}:${lineOf(m.index!)}: "${m[0]}": this document has no section ${number}`);
    }
  }
  for (const m of text.matchAll(/§|provider notes/g)) out.push(`${doc}:${lineOf(m.index!)}: "${m[0]}" points outside the repository`);
  return out;
}

it('every link, file name and section reference in the docs resolves in the repository', () => {
  expect(documents().flatMap(problemsOf)).toEqual([]);
});
