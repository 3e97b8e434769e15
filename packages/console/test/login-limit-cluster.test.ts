// The login limit on a Redis Cluster (issue 15.6): the per-address and per-name counters are two
// keys in two hash slots, so no command or MULTI may name both (the cluster would refuse it with
// CROSSSLOT and every failed login would go uncounted). A recording stand-in lists each command's keys.
import { LOGIN_ATTEMPTS, LoginLimit } from '../src/login-limit';

function recorder() {
  const commands: string[][] = [];
  const counts = new Map<string, number>();
  const redis = {
    get: async (k: string) => (commands.push([k]), String(counts.get(k) ?? 0)),
    ttl: async (k: string) => (commands.push([k]), 60),
    mget: async (...keys: string[]) => (commands.push(keys), keys.map((k) => String(counts.get(k) ?? 0))),
    multi() {
      const keys = new Set<string>();
      const chain = {
        incr: (k: string) => (keys.add(k), counts.set(k, (counts.get(k) ?? 0) + 1), chain),
        expire: (k: string) => (keys.add(k), chain),
        exec: async () => (commands.push([...keys]), []),
      };
      return chain;
    },
  };
  return { redis: redis as never, commands };
}

it('every command and transaction of the login limit names one key', async () => {
  const { redis, commands } = recorder();
  const limit = new LoginLimit(redis, 'mg');
  for (let i = 0; i < LOGIN_ATTEMPTS; i++) {
    expect(await limit.blockedFor('10.0.0.1', 'Alice')).toBe(0);
    await limit.failed('10.0.0.1', 'Alice');
  }
  expect(await limit.blockedFor('10.0.0.1', 'Alice')).toBeGreaterThan(0);
  expect(commands.length).toBeGreaterThan(0);
  for (const keys of commands) expect(keys).toHaveLength(1);
});
