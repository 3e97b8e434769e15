// GET / answers a small page instead of a 404: links to the reference, the document and the
// health checks, and the SDK's start; escaped, with no script.
import request from 'supertest';
import { frontPage } from '../src/routes/front-page.routes';
import { startHarness, Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('front_page');
});
afterAll(async () => {
  await h.close();
});

test('GET / links the reference, the OpenAPI document, the health checks and the SDK start', async () => {
  const res = await request(h.app).get('/');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  for (const link of ['href="/docs/"', 'href="/openapi.json"', 'href="/healthz"', 'href="/readyz"']) expect(res.text).toContain(link);
  expect(res.text).toContain("import { MediaGen } from '@mediagen/client'");
  expect(res.text).toContain('mg.tasks.wait(task.taskId)');
  expect(res.text).not.toMatch(/<script|<style|\son\w+=/i);
  // Styled like the console, with its stylesheet (and only that) allowed; links to the console and the account pages.
  expect(res.text).toContain('<link rel="stylesheet" href="/console/static/console.css">');
  expect(res.headers['content-security-policy']).toMatch(/default-src 'none'; style-src 'self'/);
  for (const link of ['href="/console/"', 'href="/account"']) expect(res.text).toContain(link);
  expect((await request(h.app).get('/console/static/console.css')).status).toBe(200);
});

test('the base URL is escaped into the page', () => {
  expect(frontPage('https://x.test/"><script>alert(1)</script>')).not.toContain('<script>');
});
