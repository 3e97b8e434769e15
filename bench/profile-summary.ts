// Summarises a V8 CPU profile (node --cpu-prof) by self time: per function, and per package
// (node_modules/<name>, our workspaces, node internals), so a profile can be quoted in a note.
//   npx tsx bench/profile-summary.ts <file.cpuprofile> [top=25] [fromS=0] [toS=end]
// fromS/toS keep only the samples taken in that window (seconds since the profile started), so
// start-up (module loading, compiling) can be left out.
import '@mediagen/runtime/node-version'; // first: one readable line on a Node older than 24.11
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export function packageOf(url: string): string {
  if (!url) return '(native / VM)';
  if (url.startsWith('node:')) return 'node internals';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const ws = /\/(apps|packages|bench)\/([^/]+)\//.exec(url);
  if (ws) return `${ws[1]}/${ws[2]}`;
  return url.replace(/^file:\/\//, '');
}

export function summarise(p: Profile, top = 25, fromS = 0, toS = Infinity): string {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; attribute it to that sample's node.
  let t = 0;
  p.samples.forEach((id, i) => {
    t += p.timeDeltas[i] ?? 0;
    if (t < fromS * 1e6 || t > toS * 1e6) return;
    self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fn = new Map<string, number>();
  const pkg = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const { functionName, url, lineNumber } = n.callFrame;
    const where = packageOf(url);
    const key = `${functionName || '(anonymous)'}  ${where}${url ? `:${lineNumber + 1}` : ''}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    pkg.set(where, (pkg.get(where) ?? 0) + us);
  }
  const pct = (us: number) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
  const rows = (m: Map<string, number>, n: number) =>
    [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, us]) => `  ${pct(us)}  ${k}`).join('\n');
  return [
    `profile: ${(total / 1e6).toFixed(1)} s sampled`,
    'self time by package:',
    rows(pkg, 15),
    `self time by function (top ${top}):`,
    rows(fn, top),
  ].join('\n');
}

if (require.main === module) {
  const [file, top, from, to] = process.argv.slice(2);
  if (!file) {
    console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]');
    process.exit(2);
  }
  console.log(summarise(JSON.parse(fs.readFileSync(file, 'utf8')) as Profile, Number(top ?? 25), Number(from ?? 0), to === undefined ? Infinity : Number(to)));
}
