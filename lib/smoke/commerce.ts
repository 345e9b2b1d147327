/**
 * The smoke steps of the commerce side: health, credentials, a project price, a basket and its lines, the
 * checkout and its completion (repeated), the orders, a status change and the customer's cancel, and keys kept to
 * their scope.
 */
import { randomUUID } from 'node:crypto';
import { check, type SmokeSession } from './session.ts';

export async function commerceSteps({ call, step, user, keys }: SmokeSession): Promise<void> {
  let projectGuid = '';
  let basketGuid = '';
  let checkoutId = '';
  let orderGuid = '';

  await step('health', async () => {
    check((await call('GET', '/health')).Status === 'ok', 'health is not ok');
  });

  await step('credentials are required', async () => {
    const refused = await call('GET', '/baskets', { expect: 401 });
    check(typeof refused.Error?.Code === 'string', 'a 401 without the JSON error shape');
  });

  await step('project price and name (catalog key)', async () => {
    projectGuid = randomUUID().replaceAll('-', '');
    const project = await call('PUT', `/project/${projectGuid}`, {
      apiKey: keys.catalog,
      json: { UnitPrice: 12.5, Version: 3, Name: 'Smoke test print' },
    });
    check(
      project.ProjectGuid === projectGuid && project.UnitPrice === 12.5 && project.Name === 'Smoke test print',
      `unexpected project ${JSON.stringify(project)}`,
    );
  });

  await step('basket and lines', async () => {
    const basket = await call('POST', '/basket', { token: user });
    basketGuid = basket.Guid;
    check(
      /^[0-9a-f]{32}$/.test(basketGuid) && basket.Lines.length === 0 && basket.OrderTotal === 0,
      `unexpected new basket ${JSON.stringify(basket)}`,
    );
    const added = await call('POST', `/basket/${basketGuid}/line`, {
      token: user,
      json: { ProjectGuid: projectGuid, Quantity: 2 },
    });
    check(added.Line.Total === 25 && added.Basket.OrderTotal === 25, `unexpected line ${JSON.stringify(added)}`);
    const changed = await call('PUT', `/basket/${basketGuid}/line/${added.Line.Id}`, {
      token: user,
      json: { ProjectGuid: projectGuid, Quantity: 4 },
    });
    check(
      changed.Line.Quantity === 4 && changed.Basket.OrderTotal === 50,
      `unexpected change ${JSON.stringify(changed)}`,
    );
    const read = await call('GET', `/basket/${basketGuid}`, { token: user });
    check(read.Lines.length === 1 && read.OrderTotal === 50, `unexpected basket ${JSON.stringify(read)}`);
    const list = await call('GET', '/baskets', { token: user });
    check(
      list.Baskets.some((b: { Guid: string }) => b.Guid === basketGuid),
      'the basket is not in GET /baskets',
    );
  });

  await step('checkout', async () => {
    const checkout = await call('POST', `/basket/${basketGuid}/checkout`, { token: user });
    check(
      checkout.BasketGuid === basketGuid && /^https?:\/\//.test(checkout.CheckoutUrl),
      `unexpected checkout ${JSON.stringify(checkout)}`,
    );
    // The checkout site reads the id from the URL it was sent to.
    checkoutId = new URL(checkout.CheckoutUrl).pathname.split('/').filter(Boolean).at(-1) ?? '';
    const snapshot = await call('GET', `/checkout/${checkoutId}`, { apiKey: keys.site });
    check(
      snapshot.Checkout.BasketGuid === basketGuid &&
        snapshot.Checkout.OrderTotal === 50 &&
        /^[A-Z]{3}$/.test(snapshot.Checkout.Currency) &&
        snapshot.Checkout.Lines[0]?.Name === 'Smoke test print',
      `unexpected snapshot ${JSON.stringify(snapshot)}`,
    );
  });

  await step('completion (idempotent, site key)', async () => {
    const payment = { PaymentReference: `smoke-${randomUUID()}` };
    const first = await call('POST', `/checkout/${checkoutId}/complete`, {
      apiKey: keys.site,
      json: payment,
    });
    orderGuid = first.Order.OrderGuid;
    check(
      /^[0-9a-f]{32}$/.test(orderGuid) && first.Order.OrderTotal === 50,
      `unexpected order ${JSON.stringify(first)}`,
    );
    const again = await call('POST', `/checkout/${checkoutId}/complete`, {
      apiKey: keys.site,
      json: payment,
    });
    check(again.Order.OrderGuid === orderGuid, 'a repeated completion created another order');
    await call('GET', `/basket/${basketGuid}`, { token: user, expect: 404 });
  });

  await step('orders', async () => {
    const all = await call('GET', '/orders', { token: user });
    check(
      all.Orders.some((o: { OrderGuid: string }) => o.OrderGuid === orderGuid),
      'the order is not in GET /orders',
    );
    const filtered = await call('GET', `/orders?projectguid=${projectGuid}`, { token: user });
    check(
      filtered.Orders.length === 1 && filtered.Orders[0].OrderGuid === orderGuid,
      `the project filter answered ${JSON.stringify(filtered)}`,
    );
    const order = await call('GET', `/order/${orderGuid}`, { token: user });
    check(
      order.Lines[0]?.ProjectVersion === 3 && order.Status === 'OrderReceived',
      `unexpected order ${JSON.stringify(order)}`,
    );
    const moved = await call('PUT', `/order/${orderGuid}/status`, {
      apiKey: keys.fulfilment,
      json: { Status: 'Processing' },
    });
    check(moved.Order.Status === 'Processing', `unexpected status change ${JSON.stringify(moved)}`);
    const late = await call('POST', `/order/${orderGuid}/cancel`, { token: user, expect: 409 });
    check(late.Error?.Code === 'OrderInProduction', `a cancel after Processing answered ${JSON.stringify(late)}`);
  });

  await step("the customer's cancel before production", async () => {
    const basket = await call('POST', '/basket', { token: user });
    await call('POST', `/basket/${basket.Guid}/line`, { token: user, json: { ProjectGuid: projectGuid, Quantity: 1 } });
    const checkout = await call('POST', `/basket/${basket.Guid}/checkout`, { token: user });
    const id = new URL(checkout.CheckoutUrl).pathname.split('/').filter(Boolean).at(-1) ?? '';
    const paid = await call('POST', `/checkout/${id}/complete`, {
      apiKey: keys.site,
      json: { PaymentReference: `smoke-${randomUUID()}` },
    });
    const cancelled = await call('POST', `/order/${paid.Order.OrderGuid}/cancel`, { token: user });
    check(cancelled.Order.Status === 'Cancelled', `unexpected cancel ${JSON.stringify(cancelled)}`);
    const again = await call('POST', `/order/${paid.Order.OrderGuid}/cancel`, { token: user });
    check(again.Order.Status === 'Cancelled', `a repeated cancel answered ${JSON.stringify(again)}`);
  });

  await step('keys open only their scope', async () => {
    // The site key is the one most exposed; it must not price projects or move orders.
    await call('PUT', `/project/${projectGuid}`, {
      apiKey: keys.site,
      json: { UnitPrice: 0, Version: 4 },
      expect: 403,
    });
    await call('PUT', `/order/${orderGuid}/status`, { apiKey: keys.site, json: { Status: 'Cancelled' }, expect: 403 });
    await call('GET', `/checkout/${checkoutId}`, { apiKey: keys.catalog, expect: 403 });
    await call('PUT', `/order/${orderGuid}/status`, {
      apiKey: keys.catalog,
      json: { Status: 'Cancelled' },
      expect: 403,
    });
  });
}
