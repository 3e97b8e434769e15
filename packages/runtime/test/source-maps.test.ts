// The apps keep source maps for their own files only (source-maps.ts): a stack trace still names
// the TypeScript line, and the maps packages ship are not read. Run as the gateway runs, through tsx.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

it('stack traces of our TypeScript keep their lines, and node_modules maps are off', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-source-maps-'));
  try {
    // Types and blank lines before the throw: without its map, the compiled line would differ.
    const probe = [
      `import ${JSON.stringify(path.join(ROOT, 'packages/runtime/src/source-maps.ts'))};`,
      `import { getSourceMapsSupport } from 'node:module';`,
      ``,
      `type Shape = { side: number };`,
      ``,
      `function fail(s: Shape): string {`,
      `  return new Error('side ' + s.side).stack ?? '';`, // line 7
      `}`,
      `console.log(JSON.stringify({ support: getSourceMapsSupport(), stack: fail({ side: 1 }) }));`,
    ].join('\n');
    const file = path.join(tmp, 'probe.ts');
    fs.writeFileSync(file, probe);
    const out = execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    const { support, stack } = JSON.parse(out.trim().split('\n').pop()!) as { support: object; stack: string };
    expect(support).toEqual({ enabled: true, nodeModules: false, generatedCode: false });
    expect(stack).toContain(`${file}:7:`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
