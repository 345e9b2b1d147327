/**
 * Webhook management over HTTP against the local stack: registration, listing, reading, changes, rotation
 * and deletion by the owning API key only, the secret answered once and stored sealed by the local KMS
 * stand-in, and every bad input refused with a 4xx that names the problem, with nothing stored. The service
 * runs with WEBHOOK_ALLOW_LOOPBACK=true (receivers on loopback); the refusals of loopback switch it off for
 * their request. No request leaves loopback: refused addresses are literals, never resolved names (the
 * resolver's answers are stubbed in test/unit/webhook-target.test.ts).
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { config } from '../../functions/shared/config.ts';
import { webhookKey, webhookOwnerPk, webhookSubscriptionPk } from '../../functions/store/keys.ts';
import { openSecret } from '../../functions/webhooks/webhook-secrets.ts';
import { MAX_WEBHOOKS_PER_KEY } from '../../functions/domain/webhook.ts';

let service: TestService;
let siteKey: string;
let otherSiteKey: string;
let libraryKey: string;
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
  libraryKey = await service.apiKey('hooks-library', 'library');
});
afterAll(async () => service?.close());

const create = (apiKey: string, json: unknown) => service.request('POST', '/webhooks', { apiKey, json });

/** Every item in the key's webhook partition: what a refused request must leave as it was. */
async function ownerItems(apiKey: string) {
  const result = await dynamo.send(
    new QueryCommand({
      TableName: config.tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': webhookOwnerPk(keyIdOf(apiKey)) },
    }),
  );
  return result.Items ?? [];
}

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

  it('deletes a webhook with its subscription items', async () => {
    const { WebhookId } = (await create(siteKey, { Url: RECEIVER, EventTypes: ['OrderCreated'] })).body;
    const deleted = await service.request('DELETE', `/webhooks/${WebhookId}`, { apiKey: siteKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ WebhookId, Deleted: true });
    expect((await service.request('GET', `/webhooks/${WebhookId}`, { apiKey: siteKey })).status).toBe(404);
    expect(await subscribers('OrderCreated')).not.toContain(WebhookId);
  });
});

describe('refused registrations: a 4xx naming the problem, nothing stored', () => {
  const refusals: {
    name: string;
    apiKey: () => string;
    json: unknown;
    status: number;
    message: RegExp;
    loopbackOff?: true;
  }[] = [
    {
      name: 'a private address',
      apiKey: () => siteKey,
      json: { Url: 'https://10.1.2.3/hooks', EventTypes: ['OrderCreated'] },
      status: 422,
      message: /10\.1\.2\.3 is a private address/,
    },
    {
      name: 'the metadata address',
      apiKey: () => siteKey,
      json: { Url: 'https://169.254.169.254/', EventTypes: ['OrderCreated'] },
      status: 422,
      message: /link-local/,
    },
    {
      name: 'loopback without WEBHOOK_ALLOW_LOOPBACK',
      apiKey: () => siteKey,
      json: { Url: 'https://127.0.0.1:8443/hooks', EventTypes: ['OrderCreated'] },
      status: 422,
      message: /loopback.*WEBHOOK_ALLOW_LOOPBACK=true/,
      loopbackOff: true,
    },
    {
      name: 'http:// without WEBHOOK_ALLOW_LOOPBACK (production)',
      apiKey: () => siteKey,
      json: { Url: 'http://partner.example.com/hooks', EventTypes: ['OrderCreated'] },
      status: 422,
      message: /scheme http is not allowed \(https only\)\.$/,
      loopbackOff: true,
    },
    {
      name: 'http:// to loopback without WEBHOOK_ALLOW_LOOPBACK',
      apiKey: () => siteKey,
      json: { Url: 'http://localhost:8080/hooks', EventTypes: ['OrderCreated'] },
      status: 422,
      message: /https only.*WEBHOOK_ALLOW_LOOPBACK=true/,
      loopbackOff: true,
    },
    {
      name: 'http:// to a public address',
      apiKey: () => siteKey,
      json: { Url: 'http://8.8.8.8/hooks', EventTypes: ['OrderCreated'] },
      status: 422,
      message: /http is allowed to loopback receivers only/,
    },
    {
      name: 'a URL with user info',
      apiKey: () => siteKey,
      json: { Url: 'https://user:secret@127.0.0.1/hooks', EventTypes: ['OrderCreated'] },
      status: 422,
      message: /user info/,
    },
    {
      name: 'another scheme',
      apiKey: () => siteKey,
      json: { Url: 'ftp://127.0.0.1/hooks', EventTypes: ['OrderCreated'] },
      status: 422,
      message: /scheme ftp/,
    },
    {
      name: 'a 2 KB URL',
      apiKey: () => siteKey,
      json: { Url: `https://127.0.0.1/${'a'.repeat(2048)}`, EventTypes: ['OrderCreated'] },
      status: 400,
      message: /Url.*at most 1024 characters/,
    },
    {
      name: 'an unknown event type',
      apiKey: () => siteKey,
      json: { Url: RECEIVER, EventTypes: ['OrderCreated', 'OrderShipped'] },
      status: 400,
      message: /"OrderShipped" is not an event type/,
    },
    {
      name: "a type outside the key's scope",
      apiKey: () => libraryKey,
      json: { Url: RECEIVER, EventTypes: ['OrderCreated'] },
      status: 403,
      message: /OrderCreated is not open to API keys of scope library/,
    },
    {
      name: 'no event types',
      apiKey: () => siteKey,
      json: { Url: RECEIVER, EventTypes: [] },
      status: 400,
      message: /EventTypes/,
    },
  ];
  it.each(refusals)('$name', async ({ apiKey, json, status, message, loopbackOff }) => {
    const before = await ownerItems(apiKey());
    if (loopbackOff) process.env.WEBHOOK_ALLOW_LOOPBACK = 'false';
    try {
      const response = await create(apiKey(), json);
      expect(response.status, response.text).toBe(status);
      expect(response.body.Error.Message).toMatch(message);
    } finally {
      process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';
    }
    expect(await ownerItems(apiKey())).toEqual(before);
  });

  it('refuses the same URLs on a change, leaving the webhook as it was', async () => {
    const { WebhookId } = (await create(siteKey, { Url: RECEIVER, EventTypes: ['OrderCreated'] })).body;
    const changed = await service.request('PUT', `/webhooks/${WebhookId}`, {
      apiKey: siteKey,
      json: { Url: 'https://192.168.0.1/' },
    });
    expect(changed.status).toBe(422);
    expect((await service.request('GET', `/webhooks/${WebhookId}`, { apiKey: siteKey })).body.Url).toBe(RECEIVER);
  });

  it(`refuses a key's webhook number ${MAX_WEBHOOKS_PER_KEY + 1}`, async () => {
    const key = await service.apiKey('hooks-many', 'fulfilment');
    for (let index = 0; index < MAX_WEBHOOKS_PER_KEY; index++)
      expect((await create(key, { Url: `${RECEIVER}/${index}`, EventTypes: ['OrderCreated'] })).status).toBe(200);
    const before = await ownerItems(key);
    const refused = await create(key, { Url: RECEIVER, EventTypes: ['OrderCreated'] });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.Error).toMatchObject({ Code: 'WebhookQuotaExceeded' });
    expect(refused.body.Error.Message).toMatch(/20 webhooks/);
    expect(await ownerItems(key)).toEqual(before);
    expect((await service.request('GET', '/webhooks', { apiKey: key })).body.Webhooks).toHaveLength(
      MAX_WEBHOOKS_PER_KEY,
    );
    // Deleting one makes room again.
    const first = (await service.request('GET', '/webhooks', { apiKey: key })).body.Webhooks[0].WebhookId;
    await service.request('DELETE', `/webhooks/${first}`, { apiKey: key });
    expect((await create(key, { Url: RECEIVER, EventTypes: ['OrderCreated'] })).status).toBe(200);
  }, 60_000);
});
