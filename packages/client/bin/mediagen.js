#!/usr/bin/env node
// The `mediagen` command. A published package runs the compiled dist/; inside the repository
// (npm workspaces, no build step) the TypeScript sources run through tsx, a root dependency.
const fs = require('node:fs');
const path = require('node:path');

const dist = path.join(__dirname, '..', 'dist', 'cli', 'main.js');
if (fs.existsSync(dist)) {
  require(dist).main(process.argv.slice(2));
} else {
  require('tsx/cjs');
  require('../src/cli/main.ts').main(process.argv.slice(2));
}
