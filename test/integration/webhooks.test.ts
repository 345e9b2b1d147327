/**
 * Webhook management over HTTP against the local stack: registration, listing, reading, changes, rotation
 * and deletion by the owning API key only, the secret answered once and stored sealed by the local KMS
 * stand-in. The service runs with WEBHOOK_ALLOW_LOOPBACK=true (receivers on loopback). Bad input:
 * webhook-refusals.test.ts.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { config } from '../../functions/shared/config.ts';
import { webhookKey, webhookSubscriptionPk } from '../../functions/store/keys.ts';
import { openSecret } from '../../functions/webhooks/webhook-secrets.ts';

let service: TestService;
let siteKey: string;
let otherSiteKey: string;
/** The handlers' own DynamoDB client, imported once the service has set its endpoint. */
let dynamo: typeof import('../../functions/shared/clients/dynamodb.ts').dynamo;
let hashApiKey: typeof import('../../functions/store/api-key-store.ts').hashApiKey;
/** A loopback receiver's URL; registration only vets it, nothing is sent in these tests. */
const RECEIVER = 'http://127.0.0.1:9/hooks';

const keyIdOf = (apiKey: string) => hashApiKey(apiKey).slice(0, 12);

beforeAll(async () => {
  service = await startTestService({ env: { WEBHOOK_ALLOW_LOOPBACK: 'true' }, renditions: false });
  ({ dynamo } = await import('../../functions/shared/clients/dynamodb.ts'));
  ({ hashApiKey } = await import('../../functions/store/api-key-store.ts'));
  siteKey = await service.apiKey('hooks-site', 'site');
  otherSiteKey = await service.apiKey('hooks-other-site', 'site');
});
afterAll(async () => service?.close());

const create = (apiKey: string, json: unknown) => service.request('POST', '/webhooks', { apiKey, json });

async function subscribers(eventType: string): Promise<string[]> {
  const result = await dynamo.send(
    new QueryCommand({
      TableName: config.tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': webhookSubscriptionPk(eventType) },
    }),
  );
  return (result.Items ?? []).map((item) => item.webhookId as string);
}

describe('webhook management', () => {
  it('registers a webhook, answers its secret once and stores it sealed', async () => {
    const created = await create(siteKey, { Url: RECEIVER, EventTypes: ['OrderCreated', 'BasketCheckedOut'] });
    expect(created.status, created.text).toBe(200);
    const { WebhookId, Secret } = created.body;
    expect(WebhookId).toMatch(/^[0-9a-f]{32}$/);
    expect(created.body).toMatchObject({
      Url: RECEIVER,
      EventTypes: ['OrderCreated', 'BasketCheckedOut'],
      Status: 'Enabled',
    });
    expect(created.body.CreatedDateUtc).toMatch(/^\/Date\(\d+\)\/$/);
    expect(Secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(Secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);

    const read = await service.request('GET', `/webhooks/${WebhookId}`, { apiKey: siteKey });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ ...created.body, Secret: undefined });
    expect(read.text).not.toContain('whsec_');
    const listed = await service.request('GET', '/webhooks', { apiKey: siteKey });
    expect(listed.body.Webhooks.map((webhook: { WebhookId: string }) => webhook.WebhookId)).toContain(WebhookId);
    expect(listed.text).not.toContain('whsec_');

    // The table holds only KMS ciphertext bound to this webhook: it opens with this id, not with another.
    const item = (
      await dynamo.send(new GetCommand({ TableName: config.tableName, Key: webhookKey(keyIdOf(siteKey), WebhookId) }))
    ).Item!;
    expect(JSON.stringify(item)).not.toContain(Secret.slice('whsec_'.length));
    expect(await openSecret(WebhookId, item.sealedSecret)).toBe(Secret);
    await expect(openSecret('0'.repeat(32), item.sealedSecret)).rejects.toThrow(/InvalidCiphertext|not valid/);
    expect(await subscribers('OrderCreated')).toContain(WebhookId);
    expect(await subscribers('BasketCheckedOut')).toContain(WebhookId);
  });

  it("answers 404 for another key's webhook, and lists only the caller's", async () => {
    const { WebhookId } = (await create(siteKey, { Url: RECEIVER, EventTypes: ['OrderCreated'] })).body;
    const as = (method: string, path: string, json?: unknown) =>
      service.request(method, path, { apiKey: otherSiteKey, ...(json ? { json } : {}) });
    for (const response of [
      await as('GET', `/webhooks/${WebhookId}`),
      await as('PUT', `/webhooks/${WebhookId}`, { Status: 'Disabled' }),
      await as('DELETE', `/webhooks/${WebhookId}`),
      await as('POST', `/webhooks/${WebhookId}/secret`),
    ]) {
      expect(response.status, response.text).toBe(404);
      expect(response.body.Error.Code).toBe('WebhookNotFound');
    }
    expect((await as('GET', '/webhooks')).body.Webhooks).toEqual([]);
    const still = await service.request('GET', `/webhooks/${WebhookId}`, { apiKey: siteKey });
    expect(still.body.Status).toBe('Enabled');
  });

  it('changes event types and status, keeping the subscription index in step', async () => {
    const { WebhookId } = (await create(siteKey, { Url: RECEIVER, EventTypes: ['OrderCreated'] })).body;
    const put = (json: unknown) => service.request('PUT', `/webhooks/${WebhookId}`, { apiKey: siteKey, json });

    const retyped = await put({ EventTypes: ['OrderStatusChanged'] });
    expect(retyped.status, retyped.text).toBe(200);
    expect(retyped.body.EventTypes).toEqual(['OrderStatusChanged']);
    expect(await subscribers('OrderCreated')).not.toContain(WebhookId);
    expect(await subscribers('OrderStatusChanged')).toContain(WebhookId);

    expect((await put({ Status: 'Disabled' })).body.Status).toBe('Disabled');
    expect(await subscribers('OrderStatusChanged')).not.toContain(WebhookId);
    const enabled = await put({ Status: 'Enabled', Url: 'http://127.0.0.1:10/other' });
    expect(enabled.body).toMatchObject({ Status: 'Enabled', Url: 'http://127.0.0.1:10/other' });
    expect(await subscribers('OrderStatusChanged')).toContain(WebhookId);
  });

  it('rotates the secret: a new one answered, the previous one kept sealed for 24 hours', async () => {
    const created = (await create(siteKey, { Url: RECEIVER, EventTypes: ['OrderCreated'] })).body;
    const before = Date.now();
    const rotated = await service.request('POST', `/webhooks/${created.WebhookId}/secret`, { apiKey: siteKey });
    expect(rotated.status, rotated.text).toBe(200);
    expect(Object.keys(rotated.body)).toEqual(['Secret']);
    expect(rotated.body.Secret).toMatch(/^whsec_/);
    expect(rotated.body.Secret).not.toBe(created.Secret);
    const item = (
      await dynamo.send(
        new GetCommand({ TableName: config.tableName, Key: webhookKey(keyIdOf(siteKey), created.WebhookId) }),
      )
    ).Item!;
    expect(await openSecret(created.WebhookId, item.sealedSecret)).toBe(rotated.body.Secret);
    expect(await openSecret(created.WebhookId, item.previousSecret.sealedSecret)).toBe(created.Secret);
    expect(item.previousSecret.expiresAt).toBeGreaterThanOrEqual(before + 24 * 3600_000);
    expect(item.previousSecret.expiresAt).toBeLessThanOrEqual(Date.now() + 24 * 3600_000);
  });

  it("keeps a delivery's failure streak that began while a change of its key's was in flight", async () => {
    const store = await import('../../functions/store/webhook-store.ts');
    const { WebhookId } = (await create(siteKey, { Url: RECEIVER, EventTypes: ['OrderCreated'] })).body;
    const read = (await store.getWebhook(keyIdOf(siteKey), WebhookId))!;
    // A delivery fails meanwhile: the streak begins, without a new revision.
    await store.recordDeliveryStreak(read, false, 1_000);
    // A change written over the webhook as read would erase it: refused, so its writer reads again.
    expect(await store.replaceWebhook(read, { ...read, url: 'http://127.0.0.1:11/hooks' })).toBe(false);
    const changed = await service.request('PUT', `/webhooks/${WebhookId}`, {
      apiKey: siteKey,
      json: { Url: 'http://127.0.0.1:11/hooks' },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(await store.getWebhook(keyIdOf(siteKey), WebhookId)).toMatchObject({
      url: 'http://127.0.0.1:11/hooks',
      failingSince: 1_000,
    });
  });

  it('deletes a webhook with its subscription items', async () => {
    const { WebhookId } = (await create(siteKey, { Url: RECEIVER, EventTypes: ['OrderCreated'] })).body;
    const deleted = await service.request('DELETE', `/webhooks/${WebhookId}`, { apiKey: siteKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ WebhookId, Deleted: true });
    expect((await service.request('GET', `/webhooks/${WebhookId}`, { apiKey: siteKey })).status).toBe(404);
    expect(await subscribers('OrderCreated')).not.toContain(WebhookId);
  });
});
