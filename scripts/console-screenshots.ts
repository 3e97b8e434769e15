// Screenshots of each console page for docs/console.md, taken in headless Chromium against the
// seeded gateway of scripts/console-timing.ts:
//   SCREENSHOTS=1 npx tsx scripts/console-timing.ts 2000
import '@mediagen/runtime/node-version'; // first: one readable line on a Node older than 24.11
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { chromium } from 'playwright-core';

const OUT = path.resolve(__dirname, '../docs/console');

export async function screenshots(base: string, ids: { accountId: string; taskId: string; failedTaskId: string }): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true });
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-shots-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await context.newPage();
    const shot = async (name: string) => page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: false });
    await page.goto(`${base}/console/login`);
    await shot('login');
    await page.fill('input[name=name]', 'timing');
    await page.fill('input[name=password]', 'timing password 123');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    await shot('accounts');
    await page.goto(`${base}/console/accounts/${ids.accountId}`);
    await Promise.all([page.waitForNavigation(), page.click('#create-key button')]);
    await shot('account');
    await page.goto(`${base}/console/tasks?status=failed`);
    await shot('tasks');
    await page.goto(`${base}/console/tasks/${ids.failedTaskId}`);
    await shot('task');
    await page.goto(`${base}/console/channels`);
    await shot('channels');
    await page.goto(`${base}/admin/queues/`);
    await page.waitForSelector('text=tasks', { timeout: 15_000 }).catch(() => undefined);
    await shot('queues');
    console.log(`screenshots in ${OUT}`);
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}
