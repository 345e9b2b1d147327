/**
 * Where a webhook may send: an `https://` URL on port 443 without user info whose host resolves to public
 * addresses only (another port would make the delivery log's status and duration a port scanner, which
 * the pull's 80/443 rule exists to prevent), by the pull's address policy and resolution (functions/library/pull-target.ts), checked when the
 * URL is registered and again before every delivery, which then connects to the vetted address (no DNS
 * rebinding in between). WEBHOOK_ALLOW_LOOPBACK=true also allows `http://` to loopback receivers, on any port, for local
 * work and tests, as PULL_ALLOW_LOOPBACK does for pulls; a refusal that only loopback caused names it.
 */
import { isIP } from 'node:net';
import { unprocessable } from '../shared/errors.ts';
import { config } from '../shared/config.ts';
import { isLoopback, type AddressPolicy } from '../library/address-policy.ts';
import {
  bareHost,
  isLocalhostName,
  resolveAndVet,
  systemResolver,
  type Resolver,
  type TargetRefusal,
  type VettedTarget,
} from '../library/pull-target.ts';

export interface WebhookTargetPolicy extends AddressPolicy {
  resolve: Resolver;
}

/** The policy from the environment; tests stub the resolver (no packet leaves loopback). */
export const webhookTargetPolicy = (overrides: Partial<WebhookTargetPolicy> = {}): WebhookTargetPolicy => ({
  allowLoopback: config.webhookAllowLoopback,
  resolve: systemResolver,
  ...overrides,
});

export const WEBHOOK_LOOPBACK_HINT =
  '; WEBHOOK_ALLOW_LOOPBACK=true allows http:// to loopback, for local development and tests';

export const webhookUrlRefused = (url: string, reason: string) =>
  unprocessable('WebhookUrlRefused', `Url ${url} refused: ${reason}.`);

const REFUSAL: TargetRefusal = { refused: webhookUrlRefused, loopbackHint: WEBHOOK_LOOPBACK_HINT };

/** A host the caller wrote as loopback: an address literal or a `localhost` name (RFC 6761). */
const namesLoopback = (host: string) => (isIP(host) !== 0 ? isLoopback(host) : isLocalhostName(host));

/** Parses and vets a webhook URL; answers it with the address its delivery connects to. */
export async function vetWebhookUrl(
  text: string,
  policy: WebhookTargetPolicy,
): Promise<{ url: URL; target: VettedTarget }> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw webhookUrlRefused(text, 'not an absolute URL');
  }
  if (url.username !== '' || url.password !== '')
    throw webhookUrlRefused(
      text,
      'URLs with user info (user:password@) are not accepted; the signature authenticates deliveries',
    );
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw webhookUrlRefused(text, `the scheme ${url.protocol.slice(0, -1)} is not allowed (https only)`);
  const plainHttp = url.protocol === 'http:';
  if (plainHttp && !policy.allowLoopback)
    throw webhookUrlRefused(
      text,
      `the scheme http is not allowed (https only)${namesLoopback(bareHost(url)) ? WEBHOOK_LOOPBACK_HINT : ''}`,
    );
  // The URL API drops a scheme's default port: any port left is another one.
  const port = url.port;
  const portRefused = () =>
    webhookUrlRefused(
      text,
      `port ${port} is not allowed (webhooks use 443; only loopback receivers take any port)${namesLoopback(bareHost(url)) ? WEBHOOK_LOOPBACK_HINT : ''}`,
    );
  if (port !== '' && !policy.allowLoopback) throw portRefused();
  const target = await resolveAndVet(url, policy, text, REFUSAL);
  if (plainHttp && !isLoopback(target.address))
    throw webhookUrlRefused(text, 'http is allowed to loopback receivers only; other hosts take https');
  if (port !== '' && !isLoopback(target.address)) throw portRefused();
  return { url, target };
}
