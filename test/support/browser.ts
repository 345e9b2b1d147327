/**
 * Headless Chromium for the local site's browser tests: Debian's `chromium` package (never a downloaded
 * browser) driven by playwright-core, with a fresh profile per launch. It records every request the pages
 * make, so a test can show that nothing went anywhere but loopback.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

export interface TestBrowser {
  context: BrowserContext;
  newPage(): Promise<Page>;
  /** Every URL a page requested that is not on a loopback host. */
  foreignRequests: string[];
  /** Saves a full-page screenshot as test-results/screenshots/<name>.png and answers its path. */
  screenshot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

const LOOPBACK_HOSTS = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/;

/** Browser-internal schemes (data:, blob:, about:) never leave the machine; http(s) and ws(s) must stay on loopback. */
export function isLoopbackRequest(url: string): boolean {
  const parsed = new URL(url);
  if (!/^(https?|wss?):$/.test(parsed.protocol)) return true;
  return LOOPBACK_HOSTS.test(parsed.hostname);
}

export async function launchBrowser(executablePath = CHROMIUM_PATH): Promise<TestBrowser> {
  if (!existsSync(executablePath)) {
    throw new Error(
      `The browser tests need Debian's chromium at ${executablePath}: install it with \`apt-get update && apt-get install -y chromium\` (.ci/run does this), or set CHROMIUM_PATH.`,
    );
  }
  const profile = mkdtempSync(join(tmpdir(), 'site-browser-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
    viewport: { width: 1000, height: 800 },
  });
  // Generous: the machine running the tests may be busy; no test asserts on how long anything took.
  context.setDefaultTimeout(60_000);
  context.setDefaultNavigationTimeout(60_000);
  const foreignRequests: string[] = [];
  context.on('request', (request) => {
    if (!isLoopbackRequest(request.url())) foreignRequests.push(request.url());
  });
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return {
    context,
    foreignRequests,
    newPage: () => context.newPage(),
    async screenshot(page, name) {
      const path = join(SCREENSHOT_DIR, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
