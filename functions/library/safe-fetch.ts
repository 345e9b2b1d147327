/**
 * The SSRF-safe fetch behind pull. A URL is fetched only when it is http(s) without credentials and
 * every address its host resolves to passes the address policy; the connection then goes to the vetted
 * address through a pinned `lookup` (no second DNS query, so DNS rebinding cannot swap the address in
 * between), with the Host header and the TLS server name still the URL's host name. Each redirect is
 * vetted the same way, up to a limit. One deadline covers the whole fetch, body included, and the body
 * is a stream capped at a byte limit (Content-Length is checked up front, the count while streaming).
 *
 * Every refusal or failure is a DomainError whose message names the URL: PullRefused (Unprocessable: the
 * policy said no to the URL or its addresses: scheme, credentials, an internal address, a host name that
 * does not resolve to public addresses only, too many redirects), PullFailed (Unprocessable: no answer,
 * HTTP status, a broken or slow body), PayloadTooLarge (TooLarge). No answer carries an address the host
 * resolved to, or anything else the resolver said (pull-target.ts, refusedName).
 *
 * No port-scanning oracle: until the server has answered with a status line, every failure reads the same
 * (UNREACHABLE): a port outside PULL_ALLOWED_PORTS (80 and 443), a refused, reset or timed-out connection,
 * a TLS failure, a server that speaks no HTTP. So the answer never tells an open port from a closed or
 * filtered one, or an allowed port from a refused one. Only after a status line do reasons differ.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { DomainError } from '../shared/errors.ts';
import {
  bareHost,
  checkUrl,
  portAllowed,
  pullFailed,
  pullRefused,
  pullTooLarge,
  resolveAndVet,
  unreachable,
  type PullPolicy,
  type VettedTarget,
} from './pull-target.ts';

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

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** A `lookup` that answers every query with the vetted address, in both callback forms `net` uses (webhook deliveries pin theirs too). */
export function pinnedLookup(target: VettedTarget): LookupFunction {
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
    // The error's code only: a socket error's message can name the address the host resolved to.
    const code = (error as NodeJS.ErrnoException).code;
    throw pullFailed(
      requested,
      `the connection broke after ${received} bytes${code && /^[A-Z0-9_]+$/.test(code) ? ` (${code})` : ''}`,
    );
  } finally {
    response.destroy();
  }
}
