// webhooks.verify accepts events signed by the reference Standard Webhooks library (also with
// a second, rotated secret), and refuses a changed body, a wrong secret and an old timestamp.
import { Webhook } from 'standardwebhooks';
import { randomBytes } from 'node:crypto';
import { MediaGen, WebhookVerificationError } from '../src';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const body = JSON.stringify({ type: 'task.completed', timestamp: new Date().toISOString(), data: { taskId: 'tsk_1', model: 'image-b-2.5', status: 'completed', type: 'image', resultUrls: ['https://x.test/f.png'] } });

function signed(at = new Date(), s = secret) {
  const id = `msg_${randomBytes(6).toString('hex')}`;
  const signature = new Webhook(s).sign(id, at, body);
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
}

const { webhooks } = new MediaGen({ apiKey: 'unused' });

test('verifies a library-signed event from plain headers or a Headers object', () => {
  const h = signed();
  expect(webhooks.verify(body, h, secret)).toMatchObject({ type: 'task.completed', data: { taskId: 'tsk_1' } });
  expect(webhooks.verify(Buffer.from(body), new Headers(h), secret).data.taskId).toBe('tsk_1');
});

test('during a rotation both secrets verify', () => {
  const next = `whsec_${randomBytes(24).toString('base64')}`;
  expect(webhooks.verify(body, signed(new Date(), next), [secret, next]).type).toBe('task.completed');
});

test('refuses tampering, a wrong secret and a replayed old request', () => {
  const h = signed();
  expect(() => webhooks.verify(body.replace('completed', 'failed'), h, secret)).toThrow(WebhookVerificationError);
  expect(() => webhooks.verify(body, h, `whsec_${randomBytes(24).toString('base64')}`)).toThrow(WebhookVerificationError);
  expect(() => webhooks.verify(body, signed(new Date(Date.now() - 10 * 60_000)), secret)).toThrow(/tolerance/);
  expect(() => webhooks.verify(body, { 'webhook-id': 'x' }, secret)).toThrow(/Missing/);
});
