// `prisma migrate deploy` (the WebAssembly schema engine, docs/operations.md section 6) splits a
// migration script at every `;`, comments included: a `;` in a `--` comment cut the audit-events
// migration in two and `npm start` stopped with `syntax error at or near "purely"`. The test schemas
// apply each file whole through pg, so only this check (and a real start) sees it.
import fs from 'node:fs';
import path from 'node:path';

const DIR = path.resolve(__dirname, '../../prisma/migrations');

it('no migration has a semicolon inside a -- comment', () => {
  const found: string[] = [];
  for (const m of fs.readdirSync(DIR).filter((d) => fs.existsSync(path.join(DIR, d, 'migration.sql')))) {
    fs.readFileSync(path.join(DIR, m, 'migration.sql'), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const comment = line.indexOf('--');
        if (comment >= 0 && line.slice(comment).includes(';')) found.push(`${m}/migration.sql:${i + 1}: ${line.trim()}`);
      });
  }
  expect(found).toEqual([]);
});
