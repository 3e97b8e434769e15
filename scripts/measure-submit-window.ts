// Measures the write that closes the double-render window on channels without idempotent submits
// (docs/providers.md): the time from the submit's answer to the upstream id being durable
// (recordUpstreamId, one UPDATE). Run: npx tsx scripts/measure-submit-window.ts (local Postgres).
import { createDb, newId, recordUpstreamId, startAttempt, createTaskWithCharge, creditAccount } from '@mediagen/db';
import { createTestSchema } from '@mediagen/db/testing';
(async () => {
  const schema = await createTestSchema('window');
  const db = createDb(schema.url, { poolSize: 4 });
  const accountId = newId('acc');
  await db.account.create({ data: { id: accountId, name: 'w', maxConcurrentTasks: 100000 } });
  await creditAccount(db, accountId, 10_000_000, 'w');
  const times: number[] = [];
  for (let i = 0; i < 300; i++) {
    const taskId = newId();
    await createTaskWithCharge(db, { taskId, accountId, type: 'video', model: 'video-a-h3', params: {}, costCents: 1, costMicros: 10_000n, billedSeconds: 1, deadlineAt: new Date(Date.now() + 60000) });
    const a = await startAttempt(db, newId('att'), taskId, 1, 'c');
    const t0 = process.hrtime.bigint();
    await recordUpstreamId(db, a, `u-${i}`);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((x, y) => x - y);
  const q = (p: number) => times[Math.floor(p * (times.length - 1))].toFixed(2);
  console.log(JSON.stringify({ n: times.length, p50ms: q(0.5), p99ms: q(0.99), maxMs: times[times.length - 1].toFixed(2) }));
  await db.$disconnect();
  await schema.drop();
})();
