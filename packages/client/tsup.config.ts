// The build of the packed SDK (`npm pack -w @mediagen/client` runs it through prepack): the library
// and the CLI bundled by esbuild into CommonJS (dist/*.js) and ES modules (dist/*.mjs), with their
// declarations bundled by tsup into one .d.ts (require) and one .d.mts (import) each, so both module
// systems get types that match their files. Node 20 is the oldest runtime consumers may use.
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', 'cli/main': 'src/cli/main.ts' },
  format: ['cjs', 'esm'],
  dts: { entry: { index: 'src/index.ts' } },
  target: 'node20',
  platform: 'node',
  tsconfig: 'tsconfig.build.json',
  outDir: 'dist',
  clean: true,
  sourcemap: false,
  // cli-progress stays a dependency the consumer installs; everything else is ours.
  external: ['cli-progress'],
  outExtension: ({ format }) => ({ js: format === 'esm' ? '.mjs' : '.js' }),
});
