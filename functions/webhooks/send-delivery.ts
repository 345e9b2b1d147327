/**
 * One delivery attempt: the body POSTed to the webhook's URL, signed with Standard Webhooks' reference
 * implementation (`standardwebhooks`: one `v1,<signature>` per secret, space-separated, during a rotation).
 * The URL is vetted again first (webhook-target.ts) and the connection goes to the vetted address through
 * a pinned lookup (safe-fetch.ts), so DNS rebinding cannot swap it in between. One deadline
 * (WEBHOOK_TIMEOUT_MS) covers connecting, sending and the answer's status; redirects are not followed (a
 * 3xx is a failed attempt); the answer's body is not read.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import type { AttemptResult } from '../domain/webhook-delivery.ts';
import { pinnedLookup } from '../library/safe-fetch.ts';
import { bareHost, type VettedTarget } from '../library/pull-target.ts';
import { vetWebhookUrl, type WebhookTargetPolicy } from './webhook-target.ts';

export interface SignedDelivery {
  /** `webhook-id`: the delivery's id. */
  id: string;
  /** `webhook-timestamp`: when this attempt signs. */
  timestamp: Date;
  body: string;
}

/** The three Standard Webhooks headers, signed with every secret given (the current one first). */
export function signatureHeaders(delivery: SignedDelivery, secrets: readonly string[]): Record<string, string> {
  return {
    'webhook-id': delivery.id,
    'webhook-timestamp': String(Math.floor(delivery.timestamp.getTime() / 1000)),
    'webhook-signature': secrets
      .map((secret) => new StandardWebhook(secret).sign(delivery.id, delivery.timestamp, delivery.body))
      .join(' '),
  };
}

function post(url: URL, target: VettedTarget, headers: Record<string, string>, body: string, signal: AbortSignal) {
  const host = bareHost(url);
  return new Promise<number>((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)({
      protocol: url.protocol,
      hostname: host,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: {
        ...headers,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        'User-Agent': 'photo-commerce-webhooks/1',
      },
      lookup: pinnedLookup(target),
      // A fresh connection per attempt: a pooled socket could have been opened for another vetted address.
      agent: false,
      ...(url.protocol === 'https:' && isIP(host) === 0 ? { servername: host } : {}),
      signal,
    });
    request.once('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.once('error', reject);
    request.end(body);
  });
}

/** Sends one attempt: the receiver's status, or why there was none. */
export async function sendDelivery(
  url: string,
  delivery: SignedDelivery,
  secrets: readonly string[],
  policy: WebhookTargetPolicy & { timeoutMs: number },
): Promise<AttemptResult> {
  const signal = AbortSignal.timeout(policy.timeoutMs);
  try {
    const vetted = await vetWebhookUrl(url, policy);
    const status = await post(vetted.url, vetted.target, signatureHeaders(delivery, secrets), delivery.body, signal);
    return { status };
  } catch (error) {
    if (signal.aborted) return { error: `no answer within ${policy.timeoutMs} ms` };
    return { error: (error as Error).message };
  }
}
