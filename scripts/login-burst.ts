// Console sign-in under a burst, measured on this machine: a gateway in this process
// on a fresh schema, an operator, and a 256 KiB private file. Two bursts of 60 concurrent wrong
// sign-ins: one name from one address (what the login limit sees), and 60 names from 60 addresses
// (X-Forwarded-For behind TRUST_PROXY=loopback; what the hashing gate sees). For each: how many
// passwords were checked (scrypt calls), the answers, and how long /files downloads took while the
// burst ran, against the same downloads with no burst.
//   npx tsx scripts/login-burst.ts
import crypto, { randomBytes } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { loadConfig } from '@mediagen/config';
import { newId, upsertOperator } from '@mediagen/db';
import { createTestSchema } from '@mediagen/db/testing';
import { hashPassword } from '@mediagen/console';
import { signedFileUrl } from '@mediagen/storage';
import { createDeps, closeDeps } from '../apps/gateway/src/deps';
import { createApp } from '../apps/gateway/src/app';

const PASSWORD = 'the right password 42';

// Counts scrypt calls (the module property is read at call time by the password code).
let scryptCalls = 0;
const realScrypt = crypto.scrypt;
(crypto as { scrypt: unknown }).scrypt = (...args: unknown[]) => {
  scryptCalls++;
  return (realScrypt as (...a: unknown[]) => void)(...args);
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const schema = await createTestSchema('login_burst');
  const config = loadConfig({ ...process.env, NODE_ENV: 'test', DATABASE_URL: schema.url, REDIS_PREFIX: `burst-${randomBytes(3).toString('hex')}`, LOG_LEVEL: 'warn', ADMIN_TOKEN: 'burst-admin-token-0123456789', TRUST_PROXY: 'loopback' });
  const deps = await createDeps(config);
  await upsertOperator(deps.db, { id: newId('op'), name: 'alice', role: 'admin', passwordHash: await hashPassword(PASSWORD) });
  const key = `inputs/${randomBytes(16).toString('hex')}/0.png`;
  await deps.storage.put(key, randomBytes(256 * 1024), 'image/png');
  const server = createApp(deps).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fileUrl = new URL(signedFileUrl(config, config.FILE_SIGNING_SECRET, key, new Date(Date.now() + 3600_000)));
  const download = async () => {
    const t = performance.now();
    const res = await fetch(base + fileUrl.pathname + fileUrl.search);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`download ${res.status}`);
    return performance.now() - t;
  };
  try {
    const form = await fetch(`${base}/console/login`);
    const cookie = form.headers.get('set-cookie')!.split(';')[0];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
    const login = (name: string, password: string, address: string) =>
      fetch(`${base}/console/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': address },
        body: new URLSearchParams({ _csrf: csrf, name, password }).toString(),
      }).then(async (r) => (await r.arrayBuffer(), r.status));

    for (let i = 0; i < 5; i++) await download();
    const quiet: number[] = [];
    for (let i = 0; i < 20; i++) quiet.push(await download());
    console.log(`downloads with no burst: median ${median(quiet).toFixed(1)} ms, max ${Math.max(...quiet).toFixed(1)} ms`);

    const burst = async (label: string, tries: () => Promise<number>[]) => {
      scryptCalls = 0;
      let done = false;
      const during: number[] = [];
      const all = Promise.all(tries()).finally(() => (done = true));
      // Downloads one after another for as long as the burst runs.
      while (!done) during.push(await download());
      const statuses = await all;
      const counts = statuses.reduce<Record<number, number>>((m, s) => ((m[s] = (m[s] ?? 0) + 1), m), {});
      console.log(
        `${label}: passwords checked ${scryptCalls} of ${statuses.length}; answers ${JSON.stringify(counts)}; ` +
          `downloads during the burst: ${during.length}, median ${median(during).toFixed(1)} ms, max ${Math.max(...during).toFixed(1)} ms`,
      );
    };
    await burst('one name, one address', () => Array.from({ length: 60 }, (_, i) => login('alice', i === 44 ? PASSWORD : `guess ${i}`, '198.51.100.1')));
    await burst('60 names, 60 addresses', () => Array.from({ length: 60 }, (_, i) => login(`user${i}`, 'wrong password', `203.0.113.${i + 1}`)));
  } finally {
    server.close();
    await closeDeps(deps);
    await schema.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
