// The console creates webhook endpoints (before: list only), with the admin API's URL rules and
// the signing secret shown once; Bull Board links back to the console.
import request from 'supertest';
import { Harness, startHarness } from './harness';

let h: Harness;
let accountId: string;
beforeAll(async () => {
  h = await startHarness('console_webhooks');
  accountId = (await h.newAccount()).id;
  expect((await request(h.app).post('/admin/operators').set(h.admin()).send({ name: 'ops', role: 'admin', password: 'a long enough password' })).status).toBeLessThan(300);
  expect((await request(h.app).post('/admin/operators').set(h.admin()).send({ name: 'reader', role: 'viewer', password: 'a long enough password' })).status).toBeLessThan(300);
});
afterAll(() => h.close());

async function signedIn(name: string) {
  const agent = request.agent(h.app);
  const form = await agent.get('/console/login');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1];
  expect((await agent.post('/console/login').type('form').send({ _csrf: csrf, name, password: 'a long enough password' })).status).toBe(303);
  return agent;
}
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1];

it('an admin creates a webhook endpoint from the account page; its secret is shown once', async () => {
  const agent = await signedIn('ops');
  const page = await agent.get(`/console/accounts/${accountId}`);
  expect(page.text).toContain('id="create-webhook"');
  const res = await agent
    .post(`/console/accounts/${accountId}/webhooks`)
    .type('form')
    .send(`_csrf=${encodeURIComponent(csrfOf(page.text))}&url=${encodeURIComponent('https://hooks.example.com/mediagen')}&events=task.completed`);
  expect(res.status).toBe(200);
  const secret = /id="new-webhook-secret">(whsec_[^<]+)</.exec(res.text)?.[1];
  expect(secret).toBeDefined();
  const listed = await request(h.app).get(`/admin/accounts/${accountId}/webhooks`).set(h.admin());
  expect(listed.body.webhooks).toEqual(expect.arrayContaining([expect.objectContaining({ url: 'https://hooks.example.com/mediagen', events: ['task.completed'] })]));
  // Shown once: the account page afterwards lists the endpoint, not its secret.
  const again = await agent.get(`/console/accounts/${accountId}`);
  expect(again.text).toContain('https://hooks.example.com/mediagen');
  expect(again.text).not.toContain(secret!);
});

it('a URL the admin API would refuse is refused with its reason; a viewer cannot create one', async () => {
  const agent = await signedIn('ops');
  const page = await agent.get(`/console/accounts/${accountId}`);
  const res = await agent
    .post(`/console/accounts/${accountId}/webhooks`)
    .type('form')
    .send(`_csrf=${encodeURIComponent(csrfOf(page.text))}&url=${encodeURIComponent('ftp://hooks.example.com/x')}`);
  expect(res.status).toBe(422);
  expect(res.text).toContain('The webhook was not created: url: must be an https URL');

  const viewer = await signedIn('reader');
  const vpage = await viewer.get(`/console/accounts/${accountId}`);
  expect(vpage.text).not.toContain('id="create-webhook"');
  const refused = await viewer
    .post(`/console/accounts/${accountId}/webhooks`)
    .type('form')
    .send(`_csrf=${encodeURIComponent(csrfOf(vpage.text))}&url=${encodeURIComponent('https://hooks.example.com/viewer')}`);
  expect(refused.status).toBe(403);
});

it('Bull Board links back to the console', async () => {
  const res = await request(h.app).get('/admin/queues/').set(h.admin());
  expect(res.status).toBe(200);
  expect(res.text).toContain('Back to the console');
  expect(res.text).toContain('/console/');
});
