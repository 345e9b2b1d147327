/**
 * `npm start`'s side of the stand-in: started only when CHECKOUT_URL names a loopback address (the URLs the
 * service hands out then point at it), with a `site` API key (checkout, builder) and a `library` API key
 * (the upload page) made through the same store as `npm run api-key`, revoked again when the site closes.
 */
import { isIP } from 'node:net';
import { startLocalSite, type LocalSite } from './server.ts';

/** The key's name in `npm run -s api-key -- --list`. One per data directory: a new start replaces it. */
export const SITE_KEY_NAME = 'local-checkout-site';

const isLoopbackHost = (host: string): boolean =>
  host === 'localhost' || host === '[::1]' || (isIP(host) === 4 && host.startsWith('127.'));

/** Where to listen for CHECKOUT_URL, or undefined when it is not a loopback origin the stand-in can serve. */
export function loopbackAddress(checkoutUrl: string): { host: string; port: number } | undefined {
  let url: URL;
  try {
    url = new URL(checkoutUrl);
  } catch {
    return undefined;
  }
  // The stand-in serves its pages at the root; a CHECKOUT_URL with a path is some other site.
  if (url.protocol !== 'http:' || !isLoopbackHost(url.hostname) || (url.pathname !== '/' && url.pathname !== ''))
    return undefined;
  return { host: url.hostname === '[::1]' ? '::1' : url.hostname, port: Number(url.port || 80) };
}

/** The library key the upload page's calls go out with (through the site, never to the browser). */
export const SITE_LIBRARY_KEY_NAME = 'local-checkout-site-uploads';

/** Needs the store modules configured (call after startLocalService). */
async function issueSiteKey(
  name: string,
  scope: 'site' | 'library',
): Promise<{ apiKey: string; revoke(): Promise<void> }> {
  const store = await import('../../../functions/store/api-key-store.ts');
  await store.revokeApiKey(name);
  const { apiKey } = await store.createApiKey(name, scope, Date.now());
  return { apiKey, revoke: async () => void (await store.revokeApiKey(name)) };
}

/** Starts the stand-in on CHECKOUT_URL's address when that is loopback (port 0: a free one); undefined otherwise. */
export async function startCheckoutStandIn(serviceUrl: string, checkoutUrl: string): Promise<LocalSite | undefined> {
  const address = loopbackAddress(checkoutUrl);
  if (!address) return undefined;
  const key = await issueSiteKey(SITE_KEY_NAME, 'site');
  const libraryKey = await issueSiteKey(SITE_LIBRARY_KEY_NAME, 'library');
  const revoke = () => Promise.all([key.revoke(), libraryKey.revoke()]);
  try {
    const site = await startLocalSite({
      serviceUrl,
      apiKey: key.apiKey,
      host: address.host,
      port: address.port,
      // The local S3 the presigned part URLs point at (set by startLocalService).
      ...(process.env.S3_ENDPOINT
        ? { uploads: { libraryApiKey: libraryKey.apiKey, storageOrigin: new URL(process.env.S3_ENDPOINT).origin } }
        : {}),
    });
    return {
      url: site.url,
      async close() {
        await site.close();
        await revoke();
      },
    };
  } catch (error) {
    await revoke();
    throw error;
  }
}
