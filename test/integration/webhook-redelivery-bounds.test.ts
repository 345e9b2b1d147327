/**
 * Redelivery without amplification, against the local stack: a redelivery is one attempt (no retry
 * schedule after it), a delivery takes one redelivery a minute and none while it is Pending (the others are
 * 409 naming it, however many arrive at once or one after another), a delivery's record keeps its latest attempts only,
 * one kept in the log's first partition whatever its id is found and written there, and a webhook URL takes port
 * 443 only (the port is named; nothing is sent anywhere but loopback).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitStatusEvent, startWebhookStack, until, type WebhookStack } from '../support/webhooks.ts';
import { deliveryIdFor, KEPT_ATTEMPTS, type Delivery } from '../../functions/domain/webhook-delivery.ts';

let stack: WebhookStack;
let getDelivery: typeof import('../../functions/store/webhook-delivery-store.ts').getDelivery;

beforeAll(async () => {
  stack = await startWebhookStack({ WEBHOOK_RETRY_SCHEDULE: '1' });
  ({ getDelivery } = await import('../../functions/store/webhook-delivery-store.ts'));
});
afterAll(() => stack?.close());

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A delivery of a fresh webhook at `path`, once it is settled (Delivered or Failed). */
async function settledDelivery(path: string, orderGuid: string): Promise<{ webhookId: string; delivery: Delivery }> {
  const { WebhookId } = await stack.register(stack.fulfilmentKey, path, ['OrderStatusChanged']);
  const event = await commitStatusEvent(orderGuid);
  const deliveryId = deliveryIdFor(event.id, WebhookId, event.time);
  const delivery = await until(
    'the delivery settled',
    async () => {
      const found = await getDelivery(WebhookId, deliveryId);
      return found !== undefined && found.state !== 'Pending' && found;
    },
    30_000,
  );
  return { webhookId: WebhookId, delivery };
}

const redeliver = (webhookId: string, deliveryId: string) =>
  stack.service.request('POST', `/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`, {
    apiKey: stack.fulfilmentKey,
  });

describe('redelivery', () => {
  it('ten parallel redeliveries of one delivery, then one more: one reaches the receiver, the rest are 409', async () => {
    const { webhookId, delivery } = await settledDelivery('/burst', 'e'.repeat(32));
    expect(stack.receiver.to('/burst')).toHaveLength(1);
    const answers = await Promise.all(Array.from({ length: 10 }, () => redeliver(webhookId, delivery.deliveryId)));
    const accepted = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 409);
    expect(accepted.length + refused.length, answers.map((answer) => answer.text).join('\n')).toBe(10);
    expect(accepted).toHaveLength(1);
    for (const answer of refused) {
      expect(['DeliveryPending', 'RedeliveredRecently']).toContain(answer.body.Error.Code);
      expect(answer.body.Error.Message).toContain(delivery.deliveryId);
    }
    await until(
      'the redelivery settled',
      async () => (await getDelivery(webhookId, delivery.deliveryId))?.state === 'Delivered',
      30_000,
    );
    // Settled, within the minute: refused, saying from when it is taken again.
    const again = await redeliver(webhookId, delivery.deliveryId);
    expect(again.status, again.text).toBe(409);
    expect(again.body.Error).toMatchObject({ Code: 'RedeliveredRecently' });
    expect(again.body.Error.Message).toMatch(/one redelivery a minute: redeliver it from \d{4}-/);
    await pause(1_500);
    expect(stack.receiver.to('/burst')).toHaveLength(2);
  }, 90_000);

  it('is one attempt: a failing receiver gets one request, no retry schedule follows', async () => {
    stack.receiver.script(
      '/down',
      Array.from({ length: 10 }, () => 503),
    );
    const { webhookId, delivery } = await settledDelivery('/down', 'f'.repeat(32));
    expect(delivery).toMatchObject({ state: 'Failed', attemptCount: 2 });
    expect((await redeliver(webhookId, delivery.deliveryId)).status).toBe(200);
    const after = await until(
      'the redelivery failed',
      async () => {
        const found = await getDelivery(webhookId, delivery.deliveryId);
        return found?.state === 'Failed' && found.attemptCount === 3 && found;
      },
      30_000,
    );
    expect(after.attempts.map((attempt) => attempt.status)).toEqual([503, 503, 503]);
    // Past the schedule's 1 s delay: nothing more was sent.
    await pause(2_500);
    expect(stack.receiver.to('/down')).toHaveLength(3);
    expect((await getDelivery(webhookId, delivery.deliveryId))?.attemptCount).toBe(3);
  }, 90_000);

  it(`keeps the latest ${KEPT_ATTEMPTS} attempts, and the count of all`, async () => {
    const { webhookId, delivery } = await settledDelivery('/long', '7'.repeat(32));
    // A delivery that has had its share of attempts already (each stamped with its number as its duration).
    const { dynamo } = await import('../../functions/shared/clients/dynamodb.ts');
    const { webhookDeliveryKey } = await import('../../functions/store/keys.ts');
    const attempts = Array.from({ length: KEPT_ATTEMPTS }, (_, index) => ({
      at: index,
      status: 500,
      durationMs: index,
    }));
    await dynamo.send(
      new UpdateCommand({
        TableName: process.env.TABLE_NAME,
        Key: webhookDeliveryKey(webhookId, delivery.deliveryId),
        UpdateExpression: 'SET attempts = :attempts, attemptCount = :count',
        ExpressionAttributeValues: { ':attempts': attempts, ':count': 120 },
      }),
    );
    expect((await redeliver(webhookId, delivery.deliveryId)).status).toBe(200);
    await until(
      'the redelivery',
      async () => (await getDelivery(webhookId, delivery.deliveryId))?.attemptCount === 121,
      30_000,
    );
    const log = await stack.service.request('GET', `/webhooks/${webhookId}/deliveries`, {
      apiKey: stack.fulfilmentKey,
    });
    const [logged] = log.body.Deliveries;
    expect(logged.AttemptCount).toBe(121);
    expect(logged.Attempts).toHaveLength(KEPT_ATTEMPTS);
    expect(logged.Attempts[0].DurationMs).toBe(1);
    expect(logged.Attempts.at(-1).Status).toBe(200);
  }, 90_000);

  it("finds a delivery kept in the log's first partition whatever its id, and records its redelivery there", async () => {
    const { dynamo } = await import('../../functions/shared/clients/dynamodb.ts');
    const { webhookDeliveryKey, webhookDeliveryPk, deliveryShardOf } = await import('../../functions/store/keys.ts');
    const { toItem } = await import('../../functions/store/table.ts');
    const { PutCommand, GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const { WebhookId } = await stack.register(stack.fulfilmentKey, '/first-shard', ['OrderStatusChanged']);
    const deliveryId = `${'0'.repeat(30)}01`;
    const sharded = webhookDeliveryKey(WebhookId, deliveryId);
    expect(deliveryShardOf(deliveryId)).toBe(1);
    const stored: Delivery = {
      deliveryId,
      webhookId: WebhookId,
      eventType: 'OrderStatusChanged',
      eventId: 'event-first-shard',
      createdAt: Date.now() - 60_000,
      state: 'Failed',
      attempts: [{ at: Date.now() - 60_000, status: 500, durationMs: 3 }],
      body: '{}',
    };
    await dynamo.send(
      new PutCommand({
        TableName: process.env.TABLE_NAME,
        Item: toItem({ ...sharded, PK: webhookDeliveryPk(WebhookId) }, 'WebhookDelivery', stored),
      }),
    );
    expect((await redeliver(WebhookId, deliveryId)).status).toBe(200);
    const after = await until(
      'the redelivery recorded',
      async () => {
        const found = await getDelivery(WebhookId, deliveryId);
        return found?.state === 'Delivered' && found;
      },
      30_000,
    );
    expect(after.attempts.map((attempt) => attempt.status)).toEqual([500, 200]);
    expect(stack.receiver.to('/first-shard')).toHaveLength(1);
    // Nothing was written where its id would put it.
    const strayed = await dynamo.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: sharded }));
    expect(strayed.Item).toBeUndefined();
  }, 90_000);
});

describe('webhook URLs', () => {
  it('take port 443 only: another port on a public address is 422 naming it', async () => {
    for (const Url of ['https://1.1.1.1:6379/', 'https://[2606:4700:4700::1111]:22/hooks']) {
      const refused = await stack.service.request('POST', '/webhooks', {
        apiKey: stack.fulfilmentKey,
        json: { Url, EventTypes: ['OrderStatusChanged'] },
      });
      expect(refused.status, refused.text).toBe(422);
      expect(refused.body.Error.Code).toBe('WebhookUrlRefused');
      expect(refused.body.Error.Message).toMatch(/port (6379|22) is not allowed/);
    }
  });
});
