/**
 * A change that has webhook subscribers commits in as many DynamoDB round trips as one without: the
 * deliveries start from the committed outbox record on the table stream, never from the change itself. The
 * calls are counted on the handlers' shared client, so this runs the handlers from source.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookStack, type WebhookStack, until } from '../support/webhooks.ts';

let stack: WebhookStack;

beforeAll(async () => {
  stack = await startWebhookStack();
});
afterAll(() => stack?.close());

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
      const project = await stack.service.project(7);
      const basketGuid = (await stack.service.request('POST', '/basket', { token: stack.alice })).body.Guid as string;
      await stack.service.request('POST', `/basket/${basketGuid}/line`, {
        token: stack.alice,
        json: { ProjectGuid: project, Quantity: 1 },
      });
      const checkout = await stack.service.request('POST', `/basket/${basketGuid}/checkout`, { token: stack.alice });
      const checkoutId = (checkout.body.CheckoutUrl as string).split('/').pop() as string;
      const order = await stack.service.request('POST', `/checkout/${checkoutId}/complete`, {
        apiKey: stack.siteKey,
        json: { PaymentReference: 'psp-round-trips' },
      });
      const path = `/order/${order.body.Order.OrderGuid}/status`;
      // No webhook subscribes to OrderStatusChanged yet.
      expect(
        (await stack.service.request('PUT', path, { apiKey: stack.fulfilmentKey, json: { Status: 'Processing' } }))
          .status,
      ).toBe(200);
      const without = [...calls];
      calls.length = 0;
      await stack.register(stack.fulfilmentKey, '/round-trips', ['OrderStatusChanged']);
      await stack.register(stack.siteKey, '/round-trips-site', ['OrderStatusChanged']);
      expect(
        (await stack.service.request('PUT', path, { apiKey: stack.fulfilmentKey, json: { Status: 'Shipped' } })).status,
      ).toBe(200);
      expect(calls).toEqual(without);
      await until(
        'the deliveries',
        () => stack.receiver.to('/round-trips').length > 0 && stack.receiver.to('/round-trips-site').length > 0,
      );
    } finally {
      dynamoDbClient.middlewareStack.remove('countStatusChangeCalls');
    }
  });
});
