// The login limiter on a Redis Cluster: both keys of one attempt (the (address, name) pair and the
// address counter) sit in one hash slot, so its scripts run there (a CROSSSLOT refusal would leave
// every attempt unchecked). Slots computed as ioredis routes them (cluster-key-slot).
import { loginLimiterKeys } from '../src/login-limiter';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const slotOf = require('cluster-key-slot') as (key: string) => number;

it.each([
  ['mg', 'console', '10.0.0.1', 'Alice'],
  ['tenant:eu', 'account', '2001:db8::1', 'bob@example.com'],
  ['mg', 'console', '::ffff:127.0.0.1', '{weird}name}'],
  ['mg', 'console', 'unknown', ''],
])('prefix %s, scope %s, address %s, name %s: one slot', (prefix, scope, address, name) => {
  const keys = loginLimiterKeys(prefix, scope, address, name);
  expect(new Set(keys.map(slotOf)).size).toBe(1);
});

it('the name is not in the key as sent (any length, any character), and names differing in case share a count', () => {
  const [pair] = loginLimiterKeys('mg', 'console', '10.0.0.1', 'x'.repeat(500) + '{}');
  expect(pair.length).toBeLessThan(100);
  expect(loginLimiterKeys('mg', 'console', '10.0.0.1', 'Alice')[0]).toBe(loginLimiterKeys('mg', 'console', '10.0.0.1', ' alice ')[0]);
});
