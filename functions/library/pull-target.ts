/**
 * What a pull may fetch: the pull policy, the URL check, and the resolution of a host to one vetted address
 * (every address it resolves to must pass the address policy); and the errors a pull is refused or fails
 * with, each naming the URL (see safe-fetch.ts for how they are used).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { payloadTooLarge, unprocessable } from '../shared/errors.ts';
import { config } from '../shared/config.ts';
import { logger } from '../shared/powertools.ts';
import { classifyAddress, isLoopback, type AddressPolicy } from './address-policy.ts';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Host name to addresses; the system resolver in production, a stub in tests (no packet leaves loopback). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface PullPolicy extends AddressPolicy {
  /** Ports of public addresses; loopback (when allowed) takes any. */
  allowedPorts: readonly number[] | 'any';
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  resolve: Resolver;
}

export interface VettedTarget {
  address: string;
  family: 4 | 6;
}

export const systemResolver: Resolver = async (hostname) => dnsLookup(hostname, { all: true, order: 'verbatim' });

/** The policy from the environment (PULL_* variables); tests override single fields. */
export function pullPolicy(overrides: Partial<PullPolicy> = {}): PullPolicy {
  return {
    allowLoopback: config.pullAllowLoopback,
    allowedPorts: config.pullAllowedPorts,
    timeoutMs: config.pullTimeoutMs,
    maxBytes: config.pullMaxBytes,
    maxRedirects: config.pullMaxRedirects,
    resolve: systemResolver,
    ...overrides,
  };
}

export const pullRefused = (url: string, reason: string) =>
  unprocessable('PullRefused', `Pull of ${url} refused: ${reason}.`);
export const pullFailed = (url: string, reason: string) =>
  unprocessable('PullFailed', `Pull of ${url} failed: ${reason}.`);
/** The one reason for every connection that gave no answer, whatever happened (see the header). */
export const UNREACHABLE = 'the server could not be reached or did not answer';
export const unreachable = (url: string) => pullFailed(url, UNREACHABLE);
export const pullTooLarge = (url: string, maxBytes: number) =>
  payloadTooLarge(`Pull of ${url} failed: the image is larger than ${maxBytes} bytes.`);

/** Parses a URL to fetch; refuses anything but http(s) and URLs carrying credentials. */
export function checkUrl(text: string, requested: string = text): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw pullRefused(requested, `${JSON.stringify(text)} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw pullRefused(requested, `the scheme ${url.protocol.slice(0, -1)} is not allowed (http and https only)`);
  if (url.username !== '' || url.password !== '')
    throw pullRefused(requested, 'URLs with credentials are not accepted');
  return url;
}

/** The host of a URL without IPv6 brackets, as the resolver and `net` want it. */
export const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Every way a host name fails to give only public addresses reads the same, naming the host and nothing
 * the resolver said: no address, no address class, no DNS error. Otherwise the answer is an oracle into
 * the function's resolver (which internal names exist, and what they point at). The detail is logged.
 */
export const NOT_PUBLIC = 'does not resolve to public addresses only';
const refusedName = (refusal: TargetRefusal, requested: string, host: string, detail: string, hint = '') => {
  logger.info('host refused', { host, detail });
  return refusal.refused(requested, `the host ${host} ${NOT_PUBLIC}${hint}`);
};

/**
 * Named when loopback is all that stood in the way: the docs' pull examples fetch from a loopback server, and
 * the switch is what a developer is missing. Said for an address literal (the caller wrote it) and for
 * `localhost` names (loopback by definition, RFC 6761), so it tells nothing about the resolver.
 */
export const LOOPBACK_HINT = '; PULL_ALLOW_LOOPBACK=true allows loopback, for local development and tests';
export const isLocalhostName = (host: string) => /(^|\.)localhost\.?$/i.test(host);

/**
 * How a refusal of resolveAndVet reads for its caller: the pull's PullRefused naming PULL_ALLOW_LOOPBACK,
 * or a webhook's refusal naming its own switch (functions/webhooks/webhook-target.ts).
 */
export interface TargetRefusal {
  refused: (requested: string, reason: string) => Error;
  loopbackHint: string;
}
const PULL_REFUSAL: TargetRefusal = { refused: pullRefused, loopbackHint: LOOPBACK_HINT };

/**
 * Resolves the URL's host and vets every address: one refused address refuses the URL (a host that
 * mixes public and internal addresses is a rebinding set-up, not a server worth trying). Returns the
 * first address, which the connection is pinned to. An address literal's refusal names its class (the
 * caller wrote the address); a name's does not (see refusedName).
 */
export async function resolveAndVet(
  url: URL,
  policy: AddressPolicy & Pick<PullPolicy, 'resolve'>,
  requested: string = url.href,
  refusal: TargetRefusal = PULL_REFUSAL,
): Promise<VettedTarget> {
  const host = bareHost(url);
  if (isIP(host) !== 0) {
    const verdict = classifyAddress(host, policy);
    if (!verdict.allowed)
      throw refusal.refused(requested, verdict.reason + (isLoopback(host) ? refusal.loopbackHint : ''));
    return { address: verdict.address, family: verdict.family };
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await policy.resolve(host);
  } catch (error) {
    throw refusedName(refusal, requested, host, `lookup failed: ${(error as NodeJS.ErrnoException).code ?? 'unknown'}`);
  }
  const verdicts = addresses.map(({ address }) => classifyAddress(address, policy));
  const refused = verdicts.find((verdict) => !verdict.allowed);
  if (refused) {
    const onlyLoopback = isLocalhostName(host) && addresses.every(({ address }) => isLoopback(address));
    throw refusedName(refusal, requested, host, refused.reason, onlyLoopback ? refusal.loopbackHint : '');
  }
  const first = verdicts[0];
  if (!first?.allowed) throw refusedName(refusal, requested, host, 'no addresses');
  return { address: first.address, family: first.family };
}

export function portAllowed(url: URL, target: VettedTarget, policy: PullPolicy): boolean {
  if (policy.allowedPorts === 'any' || (policy.allowLoopback && isLoopback(target.address))) return true;
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return policy.allowedPorts.includes(port);
}
