/**
 * One request followed across functions: the API request id a client is answered (`x-amzn-RequestId`) is the
 * `correlation_id` of the lines of the work the request causes later in other functions. A push's id is on
 * the renditions function's line for its item; an order completion's on the fan-out's line for its event and
 * the delivery function's line for its webhook delivery, whose body to the partner does not carry it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FunctionLogs } from '../support/function-logs.ts';
import type { TestService } from '../support/service.ts';
import type { WebhookReceiver } from '../support/webhooks.ts';

// Before any service module loads (hence the dynamic imports below): the lines looked at are INFO.
process.env.POWERTOOLS_LOG_LEVEL = 'INFO';

let service: TestService;
let receiver: WebhookReceiver;
let logs: FunctionLogs;
let until: typeof import('../support/webhooks.ts').until;

beforeAll(async () => {
  const webhooks = await import('../support/webhooks.ts');
  const { startTestService } = await import('../support/service.ts');
  const { captureFunctionLogs } = await import('../support/function-logs.ts');
  until = webhooks.until;
  receiver = await webhooks.startWebhookReceiver();
  service = await startTestService({ env: { WEBHOOK_ALLOW_LOOPBACK: 'true' }, streamPollMs: 50 });
  logs = await captureFunctionLogs(service.dataDir);
});
afterAll(async () => {
  logs?.stop();
  await service?.close();
  await receiver?.close();
});

describe('a request id followed across functions', () => {
  it("is on the renditions function's line for a pushed item", async () => {
    const { pushFiles } = await import('../support/library-push.ts');
    const { png } = await import('../support/images.ts');
    const apiKey = await service.apiKey('correlation-push', 'library');
    const { itemGuids, requestId } = await pushFiles(service.url, apiKey, [{ bytes: png(4, 3, 9) }]);
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const line = await until(
      "the renditions function's line for the item",
      () =>
        logs
          .of('make-renditions')
          .find((logged) => logged.message === 'renditions' && logged.itemGuid === itemGuids[0]),
      20_000,
    );
    expect(line).toMatchObject({ outcome: 'Ready', correlation_id: requestId });
  });

  it("is on the fan-out's and the delivery function's lines for an order completion's webhook delivery", async () => {
    const { registerWebhook } = await import('../support/webhooks.ts');
    const fulfilmentKey = await service.apiKey('correlation-lab', 'fulfilment');
    const siteKey = await service.apiKey('correlation-site', 'site');
    const alice = await service.token('alice-correlation');
    await registerWebhook(service, fulfilmentKey, `${receiver.url}/orders`, ['OrderCreated']);
    const project = await service.project(9.5);
    const basketGuid = (await service.request('POST', '/basket', { token: alice })).body.Guid as string;
    await service.request('POST', `/basket/${basketGuid}/line`, {
      token: alice,
      json: { ProjectGuid: project, Quantity: 1 },
    });
    const checkout = await service.request('POST', `/basket/${basketGuid}/checkout`, { token: alice });
    const checkoutId = (checkout.body.CheckoutUrl as string).split('/').pop() as string;
    const completed = await service.request('POST', `/checkout/${checkoutId}/complete`, {
      apiKey: siteKey,
      json: { PaymentReference: 'psp-correlation-1' },
    });
    expect(completed.status, completed.text).toBe(200);
    const requestId = completed.headers.get('x-amzn-requestid');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);

    const [delivery] = await until('the delivery', () => receiver.to('/orders').length > 0 && receiver.to('/orders'));
    const deliveryId = delivery!.headers['webhook-id'];
    const handled = await until("the delivery function's line", () =>
      logs
        .of('webhook-deliver')
        .find((logged) => logged.message === 'webhook delivery handled' && logged.deliveryId === deliveryId),
    );
    expect(handled).toMatchObject({ attempt: 1, correlation_id: requestId });
    const fannedOut = logs.of('webhook-fanout').find((logged) => logged.message === 'event fanned out');
    expect(fannedOut).toMatchObject({ correlation_id: requestId });
    // Internal metadata: the partner's body carries only its partner form.
    expect(delivery!.body).not.toContain(requestId!);
    expect(delivery!.body).not.toContain('CorrelationId');
  });
});
