import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's chromium, driven by playwright-core (which never downloads a browser). `.ci/run`
 * installs it; elsewhere a machine without it skips the browser tests, with the reason in the
 * test's name, and under CI=true they fail instead.
 */
export const CHROMIUM = '/usr/bin/chromium';

export const chromiumMissing: string | null = existsSync(CHROMIUM)
  ? null
  : `${CHROMIUM} is missing (apt-get install -y chromium)`;

if (chromiumMissing !== null && process.env.CI === 'true') {
  throw new Error(`the browser tests need Chromium under CI: ${chromiumMissing}`);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
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
}
