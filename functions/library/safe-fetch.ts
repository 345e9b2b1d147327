/**
 * The SSRF-safe fetch behind pull. A URL is fetched only when it is http(s) without credentials and
 * every address its host resolves to passes the address policy; the connection then goes to the vetted
 * address through a pinned `lookup` (no second DNS query, so DNS rebinding cannot swap the address in
 * between), with the Host header and the TLS server name still the URL's host name. Each redirect is
 * vetted the same way, up to a limit. One deadline covers the whole fetch, body included, and the body
 * is a stream capped at a byte limit (Content-Length is checked up front, the count while streaming).
 *
 * Every refusal or failure is a DomainError whose message names the URL: PullRefused (Unprocessable: the
 * policy said no to the URL or its addresses: scheme, credentials, an internal address, too many
 * redirects), PullFailed (Unprocessable: DNS, no answer, HTTP status, a broken or slow body),
 * PayloadTooLarge (TooLarge).
 *
 * No port-scanning oracle: until the server has answered with a status line, every failure reads the same
 * (UNREACHABLE): a port outside PULL_ALLOWED_PORTS (80 and 443), a refused, reset or timed-out connection,
 * a TLS failure, a server that speaks no HTTP. So the answer never tells an open port from a closed or
 * filtered one, or an allowed port from a refused one. Only after a status line do reasons differ.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { DomainError, payloadTooLarge, unprocessable } from '../shared/errors.ts';
import { config } from '../shared/config.ts';
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

export interface FetchedImage {
  /** The URL the body came from (after redirects). */
  url: string;
  /** The server's Content-Type; informative only, the stored type is sniffed from the bytes. */
  contentType: string | undefined;
  /** The server's Content-Length when it sent one (already checked against the limit). */
  contentLength: number | undefined;
  /** The body, failing with the DomainError of the cap or deadline when either is hit while reading. */
  body: Readable;
}

interface VettedTarget {
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

const pullRefused = (url: string, reason: string) => unprocessable('PullRefused', `Pull of ${url} refused: ${reason}.`);
const pullFailed = (url: string, reason: string) => unprocessable('PullFailed', `Pull of ${url} failed: ${reason}.`);
/** The one reason for every connection that gave no answer, whatever happened (see the header). */
export const UNREACHABLE = 'the server could not be reached or did not answer';
const unreachable = (url: string) => pullFailed(url, UNREACHABLE);
const pullTooLarge = (url: string, maxBytes: number) =>
  payloadTooLarge(`Pull of ${url} failed: the image is larger than ${maxBytes} bytes.`);

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Parses a URL to fetch; refuses anything but http(s) and URLs carrying credentials. */
function checkUrl(text: string, requested: string = text): URL {
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
const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Resolves the URL's host and vets every address: one refused address refuses the URL (a host that
 * mixes public and internal addresses is a rebinding set-up, not a server worth trying). Returns the
 * first address, which the connection is pinned to.
 */
export async function resolveAndVet(url: URL, policy: PullPolicy, requested: string = url.href): Promise<VettedTarget> {
  const host = bareHost(url);
  let addresses: ResolvedAddress[];
  if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await policy.resolve(host);
    } catch (error) {
      throw pullFailed(
        requested,
        `the host ${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})`,
      );
    }
  }
  if (addresses.length === 0) throw pullFailed(requested, `the host ${host} has no addresses`);
  const verdicts = addresses.map(({ address }) => classifyAddress(address, policy));
  for (const verdict of verdicts) {
    if (!verdict.allowed)
      throw pullRefused(
        requested,
        isIP(host) !== 0 ? verdict.reason : `${host} resolves to a refused address: ${verdict.reason}`,
      );
  }
  const first = verdicts[0];
  if (!first?.allowed) throw pullFailed(requested, `the host ${host} has no addresses`);
  return { address: first.address, family: first.family };
}

function portAllowed(url: URL, target: VettedTarget, policy: PullPolicy): boolean {
  if (policy.allowedPorts === 'any' || (policy.allowLoopback && isLoopback(target.address))) return true;
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return policy.allowedPorts.includes(port);
}

/** A `lookup` that answers every query with the vetted address, in both callback forms `net` uses. */
function pinnedLookup(target: VettedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [target]);
    else callback(null, target.address, target.family);
  };
}

function get(url: URL, target: VettedTarget, signal: AbortSignal): Promise<IncomingMessage> {
  const host = bareHost(url);
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)({
      protocol: url.protocol,
      hostname: host,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: { Accept: 'image/*', 'User-Agent': 'photo-commerce-library-pull/1' },
      lookup: pinnedLookup(target),
      // A fresh connection per fetch: a pooled socket could have been opened for another vetted address.
      agent: false,
      ...(url.protocol === 'https:' && isIP(host) === 0 ? { servername: host } : {}),
      signal,
    });
    request.once('response', resolve);
    request.once('error', reject);
    request.end();
  });
}

/**
 * Opens the image at `requested`: vets, connects, follows redirects and checks the status and
 * Content-Length. The returned body must be consumed or destroyed; the deadline runs until it ends.
 */
export async function safeFetch(requested: string, policy: PullPolicy): Promise<FetchedImage> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(pullFailed(requested, `no complete answer within ${policy.timeoutMs} ms`)),
    policy.timeoutMs,
  );
  const { signal } = controller;
  const abandoned = new Promise<never>((_resolve, reject) =>
    signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
  );
  abandoned.catch(() => undefined);

  try {
    let url = checkUrl(requested);
    for (let redirects = 0; ; redirects++) {
      const target = await Promise.race([resolveAndVet(url, policy, requested), abandoned]);
      if (!portAllowed(url, target, policy)) throw unreachable(requested);
      // Refused, reset, TLS, not HTTP, or the deadline before any status line: all one answer.
      const response = await Promise.race([get(url, target, signal), abandoned]).catch(() => {
        throw unreachable(requested);
      });
      const status = response.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(status)) {
        response.destroy();
        const location = response.headers.location;
        if (location === undefined) throw pullFailed(requested, `${url.href} answered ${status} without a Location`);
        if (redirects >= policy.maxRedirects)
          throw pullRefused(requested, `more than ${policy.maxRedirects} redirects`);
        url = checkUrl(new URL(location, url).href, requested);
        continue;
      }
      if (status !== 200) {
        response.destroy();
        const server = url.href === requested ? 'the server' : url.href;
        throw pullFailed(
          requested,
          `${server} answered ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`,
        );
      }
      const declaredLength =
        response.headers['content-length'] === undefined ? undefined : Number(response.headers['content-length']);
      if (declaredLength !== undefined && declaredLength > policy.maxBytes) {
        response.destroy();
        throw pullTooLarge(requested, policy.maxBytes);
      }
      const body = Readable.from(cappedBody(response, requested, policy.maxBytes, signal), { objectMode: false });
      signal.addEventListener('abort', () => body.destroy(signal.reason), { once: true });
      body.once('close', () => clearTimeout(timer));
      return { url: url.href, contentType: response.headers['content-type'], contentLength: declaredLength, body };
    }
  } catch (error) {
    clearTimeout(timer);
    controller.abort(error);
    throw error;
  }
}

/** The response's bytes, failing once more than `maxBytes` arrived or the connection broke early. */
async function* cappedBody(
  response: IncomingMessage,
  requested: string,
  maxBytes: number,
  signal: AbortSignal,
): AsyncGenerator<Buffer> {
  let received = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > maxBytes) throw pullTooLarge(requested, maxBytes);
      yield chunk;
    }
    if (!response.complete)
      throw pullFailed(requested, `the connection closed after ${received} bytes, before the whole body arrived`);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof DomainError) throw error;
    throw pullFailed(
      requested,
      `the connection broke after ${received} bytes (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  } finally {
    response.destroy();
  }
}
