/**
 * Figure 1b: a list is bounded by its page, not by the user's history. One user with 10,000 orders and
 * one with exactly one page of them (200, plus the one that tells another page exists); GET /orders
 * must cost the same for both, and reading the whole history page by page shows what one answer
 * holding everything would have cost.
 */
import { randomBytes } from 'node:crypto';
import type { Check, Figure } from './report.ts';
import type { World } from './world.ts';
import type { DynamoCall } from './dynamo-probe.ts';

export const MANY_ORDERS = 10_000;
const PAGE = 200;

/** Writes `count` orders of one line for `userId` straight through the order store, `parallel` at a time. */
async function seedOrders(userId: string, count: number, parallel = 16): Promise<void> {
  const { orderFromCheckout, orderGuidAt } = await import('../../../functions/domain/order.ts');
  const { createOrderActions } = await import('../../../functions/store/order-store.ts');
  const { transact } = await import('../../../functions/store/transaction.ts');
  const start = Date.now() - count * 1000;
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const lines = [
        { id: 1, projectGuid: randomBytes(16).toString('hex'), quantity: 1, unitPriceMinor: 1999, projectVersion: 1 },
      ];
      const createdAt = start + index * 1000;
      const order = orderFromCheckout(
        { userId, basketGuid: randomBytes(16).toString('hex'), lines, totalMinor: 1999 },
        {
          orderGuid: orderGuidAt(createdAt, randomBytes(10)),
          paymentReference: `bench-${String(index).padStart(5, '0')}`,
          createdAt,
        },
      );
      await transact(createOrderActions(order));
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

interface ListCost {
  requests: number;
  capacity: number;
  orders: number;
  pages: number;
}

const sum = (calls: DynamoCall[]) => calls.reduce((total, call) => total + call.capacityUnits, 0);

/** GET /orders for `userId`, following NextCursor for at most `maxPages` pages, with capacity. */
async function listCost(world: World, userId: string, maxPages: number): Promise<ListCost> {
  const event = await world.capture('GET', '/orders', { token: await world.service.token(userId) });
  const cost: ListCost = { requests: 0, capacity: 0, orders: 0, pages: 0 };
  let cursor: string | undefined;
  do {
    world.probe.watch({ capacity: true });
    const answer = await world.invoke('list-orders', {
      ...event,
      queryStringParameters: cursor === undefined ? null : { cursor },
    });
    const { calls } = world.probe.take();
    if (answer.statusCode !== 200) throw new Error(`GET /orders answered ${answer.statusCode}: ${answer.body}`);
    const body = JSON.parse(answer.body) as { Orders: unknown[]; NextCursor?: string };
    cost.requests += calls.length;
    cost.capacity += sum(calls);
    cost.orders += body.Orders.length;
    cost.pages += 1;
    cursor = body.NextCursor;
  } while (cursor !== undefined && cost.pages < maxPages);
  return cost;
}

export async function orderPagesFigure(world: World): Promise<Figure> {
  // Same-length user ids and payment references: the two users' orders are items of the same size.
  await seedOrders('bench-orders-201', PAGE + 1);
  await seedOrders('bench-orders-10k', MANY_ORDERS);
  const onePage = await listCost(world, 'bench-orders-201', 1);
  const many = await listCost(world, 'bench-orders-10k', 1);
  const history = await listCost(world, 'bench-orders-10k', Number.POSITIVE_INFINITY);
  const row = (label: string, cost: ListCost) => [
    label,
    String(cost.pages),
    String(cost.orders),
    String(cost.requests),
    cost.capacity.toFixed(1),
  ];
  const checks: Check[] = [
    {
      name: `GET /orders, ${MANY_ORDERS.toLocaleString('en')} orders: DynamoDB requests`,
      measured: many.requests,
      limit: 1,
      kind: 'equal',
      shown: String(many.requests),
    },
    {
      name: `GET /orders, ${MANY_ORDERS.toLocaleString('en')} orders: orders answered`,
      measured: many.orders,
      limit: PAGE,
      kind: 'equal',
      shown: String(many.orders),
    },
    {
      name: `GET /orders, ${MANY_ORDERS.toLocaleString('en')} orders: capacity over one page's (${PAGE + 1} orders)`,
      measured: many.capacity - onePage.capacity,
      limit: 0,
      kind: 'max',
      shown: `${onePage.capacity.toFixed(1)} → ${many.capacity.toFixed(1)} units`,
    },
  ];
  return {
    title: '1b. Bounded lists: GET /orders against the size of the history',
    howToRead:
      `GET /orders (default page of ${PAGE}, newest first) in-process for a user with ${PAGE + 1} orders (one full page, and one more so that NextCursor appears) ` +
      `and for a user with ${MANY_ORDERS.toLocaleString('en')} orders, with consumed capacity from DynamoDB; the last row follows NextCursor through the whole history. ` +
      "Budget: one request, and no more capacity for the long history than for one page: a request costs its page, never the user's total.",
    columns: ['Request', 'Pages', 'Orders', 'DynamoDB requests', 'Capacity units'],
    rows: [
      row(`GET /orders, ${PAGE + 1} orders`, onePage),
      row(`GET /orders, ${MANY_ORDERS.toLocaleString('en')} orders`, many),
      row(`every page of ${MANY_ORDERS.toLocaleString('en')} orders (what one unbounded answer read)`, history),
    ],
    checks,
  };
}
