// Large bodies: ten submits of 39.6 MiB (three inline PNGs of 9.9 MiB, the largest whole files
// under the 40 MiB limit); the gateway's RSS peak above its idle RSS, as a multiple of the body.
import type { BenchContext } from '../lib/context';
import { expectJson, load } from '../lib/load';
import { sleep } from '../lib/procs';
import { figure } from '../lib/report';
import { IMAGE_BODY, MiB } from '../lib/settings';
import { fmt, idleRss, jsonAuth, withRss } from '../lib/tasks';
import type { Section } from './section';

function inline(fileBytes: number): string {
  const b = Buffer.alloc(fileBytes);
  for (let i = 8; i + 4 <= b.length; i += 4) b.writeUInt32LE((i * 2654435761) >>> 0, i);
  Buffer.from('\x89PNG\r\n\x1a\n', 'latin1').copy(b, 0);
  return `data:image/png;base64,${b.toString('base64')}`;
}

async function run(ctx: BenchContext): Promise<void> {
  const { stack: s, log, add } = ctx;
  const [largeAccount] = await ctx.accounts('large', 1);
  const fileBytes = Math.floor(9.9 * MiB);
  const largeBody = Buffer.from(JSON.stringify({ ...IMAGE_BODY, images: [inline(fileBytes), inline(fileBytes), inline(fileBytes)] }));
  const largeConnections = Number(process.env.BENCH_LARGE_CONNECTIONS ?? 1);
  await sleep(2000);
  const idle = await idleRss(ctx.gatewayPid);
  log(`large bodies: ${largeConnections} connection(s), 10 submits of ${(largeBody.length / MiB).toFixed(1)} MiB; gateway idle RSS ${(idle / MiB).toFixed(0)} MiB`);
  const largeRun = await withRss(
    ctx.gatewayPid,
    () =>
      load({
        url: s.base,
        method: 'POST',
        connections: largeConnections,
        amount: 10,
        request: { path: '/api/image/generate', headers: jsonAuth(largeAccount), body: largeBody },
        check: expectJson(200, (b) => (b.status === 'pending' ? null : 'expected status "pending"')),
        timeoutS: 60,
      }),
    10,
  );
  const above = largeRun.peak - idle;
  log(`  ${fmt(largeRun.out)}; gateway RSS peak ${(largeRun.peak / MiB).toFixed(0)} MiB (${(above / MiB).toFixed(0)} MiB above idle)`);
  add(figure(`gateway RSS above idle during 40 MB submits (${largeConnections} at a time)`, above / MiB, 'MiB', { floor: largeBody.length / MiB, target: 3, better: 'lower' }));
  add(figure('large submits failing their check', largeRun.out.bad + largeRun.out.errors, 'responses', { target: 0, better: 'lower' }));
  // What the phase leaves for the next one (the in-flight phase runs right after): RSS at rest.
  await sleep(2000);
  const after = await idleRss(ctx.gatewayPid);
  log(`  gateway RSS at rest after the large bodies ${(after / MiB).toFixed(0)} MiB (${((after - idle) / MiB).toFixed(0)} MiB above the idle before)`);
  add(figure('gateway RSS left above idle after the 40 MB submits, at rest', (after - idle) / MiB, 'MiB', { better: 'lower' }));
}

export const largeBodiesSection: Section = { name: 'large-bodies', run };
