/**
 * A change that has webhook subscribers commits in as many DynamoDB round trips as one without: the
 * deliveries start from the committed outbox record on the table stream, never from the change itself. The
 * calls are counted on the handlers' shared client, so this runs the handlers from source.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { registerWebhook, startWebhookReceiver, until, type WebhookReceiver } from '../support/webhooks.ts';

let service: TestService;
let receiver: WebhookReceiver;
let siteKey: string;
let fulfilmentKey: string;
let alice: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  service = await startTestService({
    env: { WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1' },
    renditions: false,
    streamPollMs: 50,
  });
  siteKey = await service.apiKey('deliveries-site', 'site');
  fulfilmentKey = await service.apiKey('deliveries-fulfilment', 'fulfilment');
  alice = await service.token('alice-webhooks');
});
afterAll(async () => {
  await service?.close();
  await receiver?.close();
});

const register = (apiKey: string, path: string, EventTypes: string[]) =>
  registerWebhook(service, apiKey, `${receiver.url}${path}`, EventTypes);

describe('webhook subscribers and the commit', () => {
  it("costs a change's commit no round trip more with subscribers than without", async () => {
    const { dynamoDbClient } = await import('../../functions/shared/clients/dynamodb.ts');
    const { runningFunction } = await import('../../lib/local/source-invocations.ts');
    const calls: string[] = [];
    dynamoDbClient.middlewareStack.add(
      (next, context) => async (args) => {
        if (runningFunction() === 'update-order-status') calls.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'countStatusChangeCalls' },
    );
    try {
      const project = await service.project(7);
      const basketGuid = (await service.request('POST', '/basket', { token: alice })).body.Guid as string;
      await service.request('POST', `/basket/${basketGuid}/line`, {
        token: alice,
        json: { ProjectGuid: project, Quantity: 1 },
      });
      const checkout = await service.request('POST', `/basket/${basketGuid}/checkout`, { token: alice });
      const checkoutId = (checkout.body.CheckoutUrl as string).split('/').pop() as string;
      const order = await service.request('POST', `/checkout/${checkoutId}/complete`, {
        apiKey: siteKey,
        json: { PaymentReference: 'psp-round-trips' },
      });
      const path = `/order/${order.body.Order.OrderGuid}/status`;
      // No webhook subscribes to OrderStatusChanged yet.
      expect(
        (await service.request('PUT', path, { apiKey: fulfilmentKey, json: { Status: 'Processing' } })).status,
      ).toBe(200);
      const without = [...calls];
      calls.length = 0;
      await register(fulfilmentKey, '/round-trips', ['OrderStatusChanged']);
      await register(siteKey, '/round-trips-site', ['OrderStatusChanged']);
      expect((await service.request('PUT', path, { apiKey: fulfilmentKey, json: { Status: 'Shipped' } })).status).toBe(
        200,
      );
      expect(calls).toEqual(without);
      await until(
        'the deliveries',
        () => receiver.to('/round-trips').length > 0 && receiver.to('/round-trips-site').length > 0,
      );
    } finally {
      dynamoDbClient.middlewareStack.remove('countStatusChangeCalls');
    }
  });
});
