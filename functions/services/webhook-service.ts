/**
 * Webhook management for the calling API key: register, list, read, change, delete, rotate the secret. A
 * key sees only its own webhooks (they live in its partition: another key's id is simply not found). The
 * URL is vetted before anything is stored (webhooks/webhook-target.ts); the secret is sealed by KMS before
 * it is stored and answered only here, on creation and rotation.
 */
import type { ApiKeyScope } from '../auth/principal.ts';
import {
  changed,
  checkEventTypes,
  resumed,
  rotated,
  webhookNotFound,
  webhookQuotaExceeded,
  type Webhook,
  type WebhookStatus,
} from '../domain/webhook.ts';
import { newGuid } from '../shared/ids.ts';
import { retryOnConflict } from '../shared/retry.ts';
import { TransactionConflictError } from '../store/transaction.ts';
import * as store from '../store/webhook-store.ts';
import { newWebhookSecret, sealSecret } from '../webhooks/webhook-secrets.ts';
import { startRequeue } from './webhook-pause-service.ts';
import { vetWebhookUrl, webhookTargetPolicy } from '../webhooks/webhook-target.ts';

/** The calling API key (the principal's). */
export interface Caller {
  id: string;
  scope: ApiKeyScope;
}

const isConflict = (error: unknown) => error instanceof TransactionConflictError;

/** The URL as it will be called, once vetted (registration refuses what a delivery would refuse). */
async function vettedUrl(text: string): Promise<string> {
  return (await vetWebhookUrl(text, webhookTargetPolicy())).url.href;
}

export async function registerWebhook(
  caller: Caller,
  request: { url: string; eventTypes: readonly string[] },
  now = Date.now(),
): Promise<{ webhook: Webhook; secret: string }> {
  const eventTypes = checkEventTypes(request.eventTypes, caller.scope);
  const url = await vettedUrl(request.url);
  const webhookId = newGuid();
  const secret = newWebhookSecret();
  const webhook: Webhook = {
    webhookId,
    ownerKeyId: caller.id,
    ownerScope: caller.scope,
    url,
    eventTypes,
    status: 'Enabled',
    createdAt: now,
    revision: 1,
    sealedSecret: await sealSecret(webhookId, secret),
  };
  const created = await retryOnConflict(() => store.createWebhook(webhook), isConflict);
  if (!created) throw webhookQuotaExceeded();
  return { webhook, secret };
}

export const listWebhooks = (caller: Caller): Promise<Webhook[]> => store.listWebhooks(caller.id);

export async function readWebhook(caller: Caller, webhookId: string): Promise<Webhook> {
  const webhook = await store.getWebhook(caller.id, webhookId);
  if (!webhook) throw webhookNotFound(webhookId);
  return webhook;
}

/** Reads the webhook, derives its next state and writes it over the one read; again when another change won. */
async function changeWebhook(
  caller: Caller,
  webhookId: string,
  next: (webhook: Webhook) => Webhook | Promise<Webhook>,
): Promise<{ before: Webhook; after: Webhook }> {
  return retryOnConflict(
    async () => {
      const before = await readWebhook(caller, webhookId);
      const after = await next(before);
      if (!(await store.replaceWebhook(before, after))) throw new TransactionConflictError('webhook changed meanwhile');
      return { before, after };
    },
    isConflict,
    { attempts: 10 },
  );
}

export async function updateWebhook(
  caller: Caller,
  webhookId: string,
  request: { url?: string | undefined; eventTypes?: readonly string[] | undefined; status?: WebhookStatus | undefined },
): Promise<Webhook> {
  const eventTypes = request.eventTypes === undefined ? undefined : checkEventTypes(request.eventTypes, caller.scope);
  const url = request.url === undefined ? undefined : await vettedUrl(request.url);
  const { before, after } = await changeWebhook(caller, webhookId, (webhook) =>
    changed(webhook, {
      ...(url !== undefined ? { url } : {}),
      ...(eventTypes !== undefined ? { eventTypes } : {}),
      ...(request.status !== undefined ? { status: request.status } : {}),
    }),
  );
  // Enabled by its key: what waited while it was paused goes out again.
  if (resumed(before, after)) await startRequeue(after, Date.now());
  return after;
}

export async function rotateWebhookSecret(caller: Caller, webhookId: string, now = Date.now()): Promise<string> {
  const secret = newWebhookSecret();
  await changeWebhook(caller, webhookId, async (webhook) => rotated(webhook, await sealSecret(webhookId, secret), now));
  return secret;
}

export async function removeWebhook(caller: Caller, webhookId: string): Promise<void> {
  await retryOnConflict(
    async () => {
      const webhook = await readWebhook(caller, webhookId);
      if (!(await store.deleteWebhook(webhook))) throw new TransactionConflictError('webhook changed meanwhile');
    },
    isConflict,
    { attempts: 10 },
  );
}
