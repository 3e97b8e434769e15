// Imported first by each app's main.ts, before any package loads. tsx turns source maps on for
// every module (process.setSourceMapsEnabled(true)), node_modules included: Node then reads and
// keeps the maps the packages ship, 5-9 MiB of the gateway's heap, to turn their stack frames into
// sources nobody reads here (docs/benchmark.md, "Gateway RSS on Node 24"). Our own files keep their maps, so a
// stack trace still names the TypeScript line.
import { setSourceMapsSupport } from 'node:module';

setSourceMapsSupport(true, { nodeModules: false, generatedCode: false });
