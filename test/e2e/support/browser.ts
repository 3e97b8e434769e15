// Headless Chromium for browser tests: Debian's `chromium` package driven by playwright-core
// (which never downloads a browser). Without /usr/bin/chromium the tests are skipped with the reason.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** null (and the reason printed) when no browser is installed here. */
export function browserMissing(): string | null {
  if (fs.existsSync(CHROMIUM)) return null;
  const why = `browser tests skipped: ${CHROMIUM} is missing (apt-get install -y chromium; .ci/run does it)`;
  console.warn(why);
  return why;
}

/** A fresh profile each time (playwright passes it as --user-data-dir). */
export async function launchChromium(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => undefined);
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
