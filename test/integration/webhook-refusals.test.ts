/**
 * Every bad registration or change of a webhook, over HTTP against the local stack, refused with a 4xx that
 * names the problem, with nothing stored. The service runs with WEBHOOK_ALLOW_LOOPBACK=true; the refusals of
 * loopback switch it off for their request in this process, so this file runs the handlers from source. No
 * request leaves loopback: refused addresses are literals, never resolved names (the resolver's answers are
 * stubbed in test/unit/webhook-target.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { snapshotStore, storeDiff } from '../support/store-snapshot.ts';
import { MAX_WEBHOOKS_PER_KEY } from '../../functions/domain/webhook.ts';

let service: TestService;
let siteKey: string;
let libraryKey: string;
/** A loopback receiver's URL; registration only vets it, nothing is sent in these tests. */
const RECEIVER = 'http://127.0.0.1:9/hooks';

beforeAll(async () => {
  service = await startTestService({ env: { WEBHOOK_ALLOW_LOOPBACK: 'true' }, renditions: false });
  siteKey = await service.apiKey('refusals-site', 'site');
  libraryKey = await service.apiKey('refusals-library', 'library');
});
afterAll(async () => service?.close());

const create = (apiKey: string, json: unknown) => service.request('POST', '/webhooks', { apiKey, json });

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
    const before = await snapshotStore(service);
    if (loopbackOff) process.env.WEBHOOK_ALLOW_LOOPBACK = 'false';
    try {
      const response = await create(apiKey(), json);
      expect(response.status, response.text).toBe(status);
      expect(response.body.Error.Message).toMatch(message);
    } finally {
      process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';
    }
    expect(storeDiff(before, await snapshotStore(service))).toEqual([]);
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
    const before = await snapshotStore(service);
    const refused = await create(key, { Url: RECEIVER, EventTypes: ['OrderCreated'] });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.Error).toMatchObject({ Code: 'WebhookQuotaExceeded' });
    expect(refused.body.Error.Message).toMatch(/20 webhooks/);
    expect(storeDiff(before, await snapshotStore(service))).toEqual([]);
    expect((await service.request('GET', '/webhooks', { apiKey: key })).body.Webhooks).toHaveLength(
      MAX_WEBHOOKS_PER_KEY,
    );
    // Deleting one makes room again.
    const first = (await service.request('GET', '/webhooks', { apiKey: key })).body.Webhooks[0].WebhookId;
    await service.request('DELETE', `/webhooks/${first}`, { apiKey: key });
    expect((await create(key, { Url: RECEIVER, EventTypes: ['OrderCreated'] })).status).toBe(200);
  }, 60_000);
});
