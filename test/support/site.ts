/**
 * The local service, the checkout and builder site in front of it (as `npm start` runs them), and a
 * headless browser, for the site's browser tests. Everything on free loopback ports.
 */
import type { Page } from 'playwright-core';
import { startTestService, type TestService } from './service.ts';
import { launchBrowser, type TestBrowser } from './browser.ts';
import { startCheckoutStandIn } from '../../lib/local/site/stand-in.ts';
import type { LocalSite } from '../../lib/local/site/server.ts';

export interface SiteStack {
  service: TestService;
  site: LocalSite;
  browser: TestBrowser;
  /** Closes the site alone (the rest keeps running); `close` then skips it. */
  closeSite(): Promise<void>;
  close(): Promise<void>;
}

export async function startSiteStack(): Promise<SiteStack> {
  const service = await startTestService();
  // Port 0: a free port. The service reads CHECKOUT_URL per request, so the URLs it hands out name the site.
  const site = await startCheckoutStandIn(service.url, 'http://127.0.0.1:0');
  if (!site) throw new Error('the stand-in did not start on a loopback CHECKOUT_URL');
  process.env.CHECKOUT_URL = site.url;
  const browser = await launchBrowser().catch(async (error: unknown) => {
    await site.close();
    await service.close();
    throw error;
  });
  let siteOpen = true;
  const closeSite = async () => {
    if (siteOpen) await site.close();
    siteOpen = false;
  };
  return {
    service,
    site,
    browser,
    closeSite,
    async close() {
      await browser.close();
      await closeSite();
      await service.close();
    },
  };
}

export const pageHeading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();
