/**
 * One realistic, successful request per endpoint, against a small fixed data set of one user (a few
 * baskets with lines, projects, a checkout). Each scenario is the event the real front builds for it;
 * benchmarks replay it in-process. Endpoints whose handler does not exist yet are left out.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { RequestOptions } from '../../support/service.ts';
import { presentHandlers, type World } from './world.ts';

export interface Scenario {
  /** Row label: the route, and what the request does when the route has several cases. */
  label: string;
  handler: string;
  event: APIGatewayProxyEvent;
}

interface Planned {
  label: string;
  handler: string;
  method: string;
  path: string;
  options: RequestOptions;
}

async function expectOk(world: World, method: string, path: string, options: RequestOptions): Promise<any> {
  const response = await world.service.request(method, path, options);
  if (response.status !== 200) throw new Error(`seeding ${method} ${path}: ${response.status} ${response.text}`);
  return response.body;
}

export const BENCH_USER = 'bench-user';

export async function buildScenarios(world: World): Promise<Scenario[]> {
  const present = presentHandlers();
  const token = await world.service.token(BENCH_USER);
  const internalKey = await world.service.apiKey('bench-internal', 'internal');
  const user: RequestOptions = { token };
  const internal: RequestOptions = { apiKey: internalKey };

  const photoBook = await world.service.project(29.99);
  const canvas = await world.service.project(49.5);
  const newProject = (await import('../../../functions/shared/ids.ts')).newGuid();
  const basket = async (lines: [string, number][]) => {
    const { Guid } = await expectOk(world, 'POST', '/basket', user);
    for (const [ProjectGuid, Quantity] of lines) await expectOk(world, 'POST', `/basket/${Guid}/line`, { ...user, json: { ProjectGuid, Quantity } });
    return Guid as string;
  };
  const full = await basket([
    [photoBook, 2],
    [canvas, 1],
  ]);
  const empty = await basket([]);
  const checkedOut = await basket([[photoBook, 1]]);
  const { CheckoutUrl } = await expectOk(world, 'POST', `/basket/${checkedOut}/checkout`, user);
  const checkoutId = String(CheckoutUrl).split('/').pop() as string;

  const planned: Planned[] = [
    { label: 'GET /health', handler: 'get-health', method: 'GET', path: '/health', options: {} },
    { label: 'GET /openapi.json', handler: 'get-openapi', method: 'GET', path: '/openapi.json', options: {} },
    { label: 'POST /basket', handler: 'create-basket', method: 'POST', path: '/basket', options: user },
    { label: 'GET /baskets (3 baskets)', handler: 'list-baskets', method: 'GET', path: '/baskets', options: user },
    { label: 'GET /basket/{guid} (2 lines)', handler: 'get-basket', method: 'GET', path: `/basket/${full}`, options: user },
    { label: 'DELETE /basket/{guid}', handler: 'delete-basket', method: 'DELETE', path: `/basket/${empty}`, options: user },
    { label: 'POST /basket/{guid}/line', handler: 'add-basket-line', method: 'POST', path: `/basket/${full}/line`, options: { ...user, json: { ProjectGuid: photoBook, Quantity: 1 } } },
    { label: 'PUT /basket/{guid}/line/{id}', handler: 'update-basket-line', method: 'PUT', path: `/basket/${full}/line/2`, options: { ...user, json: { ProjectGuid: canvas, Quantity: 3 } } },
    { label: 'DELETE /basket/{guid}/line/{id}', handler: 'delete-basket-line', method: 'DELETE', path: `/basket/${full}/line/1`, options: user },
    { label: 'POST /basket/{guid}/checkout', handler: 'checkout-basket', method: 'POST', path: `/basket/${full}/checkout`, options: user },
    { label: 'PUT /project/{guid}', handler: 'put-project', method: 'PUT', path: `/project/${newProject}`, options: { ...internal, json: { UnitPrice: 12.5, Version: 1 } } },
    { label: 'GET /project/{guid}', handler: 'get-project', method: 'GET', path: `/project/${photoBook}`, options: internal },
    { label: 'GET /checkout/{id}', handler: 'get-checkout', method: 'GET', path: `/checkout/${checkoutId}`, options: internal },
  ];

  const scenarios: Scenario[] = [];
  for (const plan of planned) {
    if (!present.has(plan.handler)) continue;
    scenarios.push({ label: plan.label, handler: plan.handler, event: await world.capture(plan.method, plan.path, plan.options) });
  }
  return scenarios;
}

/**
 * Fills the table with other users' baskets (one user each, two lines), straight through the basket
 * store, `parallel` writes at a time. Returns how many exist afterwards.
 */
export async function seedOtherBaskets(total: number, already: number, parallel = 16): Promise<number> {
  const { insertBasket } = await import('../../../functions/store/basket-store.ts');
  const { newBasket, addLine } = await import('../../../functions/domain/basket.ts');
  const { newGuid } = await import('../../../functions/shared/ids.ts');
  const clock = { now: Date.now(), ttlMs: 60 * 24 * 3600 * 1000 };
  let next = already;
  const worker = async () => {
    while (next < total) {
      const index = next++;
      let basket = newBasket(newGuid(), `other-user-${index}`, clock);
      basket = addLine(basket, { projectGuid: newGuid(), unitPriceMinor: 1999, version: 1 }, 2, clock).basket;
      basket = addLine(basket, { projectGuid: newGuid(), unitPriceMinor: 4950, version: 1 }, 1, clock).basket;
      await insertBasket(basket);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return total;
}
