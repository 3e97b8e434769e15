#!/usr/bin/env node
// The `mediagen` command. Inside the repository (npm workspaces, src/ present) the TypeScript sources
// run through tsx, a root dependency, so a stale dist/ left by `npm pack` is never what runs; the
// packed tarball ships no src/ and runs the compiled dist/ on plain Node 20+.
const fs = require('node:fs');
const path = require('node:path');

const src = path.join(__dirname, '..', 'src', 'cli', 'main.ts');
if (fs.existsSync(src)) {
  require('tsx/cjs');
  require(src).main(process.argv.slice(2));
} else {
  require('../dist/cli/main.js').main(process.argv.slice(2));
}
