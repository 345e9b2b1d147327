/**
 * Nothing is lost: DynamoDB throttling, conditional-check storms, timeouts, lost answers and S3 failures in
 * the middle of an upload, injected through SDK middleware on the service's real clients. Each failure is
 * retried a bounded number of times, reaches the client as a 503 (or 500) that says it is retryable, and
 * leaves no half-written basket, order or orphaned object; a retry of the same request then succeeds.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestResponse, type TestService } from '../support/service.ts';
import { injectFault, type FaultHandle, type FaultRule } from '../support/faults.ts';
import { routeExists, snapshotStore, storeDiff } from '../support/store-snapshot.ts';
import { tinyPng, multipartBody } from '../support/multipart.ts';

let service: TestService;
let clients: typeof import('../../functions/shared/clients.ts');
let alice: string;
let project: string;
let secondProject: string;
const installed: FaultHandle[] = [];

beforeAll(async () => {
  service = await startTestService();
  clients = await import('../../functions/shared/clients.ts');
  alice = await service.token('alice');
  project = await service.project(12.5);
  secondProject = await service.project(3);
});
afterEach(() => {
  for (const handle of installed.splice(0)) handle.remove();
});
afterAll(() => service?.close());

function dynamoFault(rule: FaultRule): FaultHandle {
  const handle = injectFault(clients.dynamoDbClient, rule);
  installed.push(handle);
  return handle;
}

function s3Fault(rule: FaultRule): FaultHandle {
  const handle = injectFault(clients.s3, rule);
  installed.push(handle);
  return handle;
}

/** The SDK's attempt budget per call (its standard retry mode): what every injected failure is retried up to. */
const sdkAttempts = (): Promise<number> => clients.dynamoDbClient.config.maxAttempts();

function removeFaults(): void {
  for (const handle of installed.splice(0)) handle.remove();
}

/** The retryable-failure contract: 503 (or 500), Retryable in the body, Retry-After, no internals. */
function expectRetryable(response: TestResponse): void {
  expect([500, 503], response.text).toContain(response.status);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(response.body.Error.Retryable).toBe(true);
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(response.text).not.toMatch(/Exception|dynamo|s3rver|at .*\.ts|PK|USER#/i);
}

const isBasketWrite = (name: string, input: Record<string, unknown>) =>
  name === 'PutItemCommand' && String((input.Item as { SK?: { S?: string } } | undefined)?.SK?.S ?? '').startsWith('BASKET#');

async function newBasket(): Promise<string> {
  const response = await service.request('POST', '/basket', { token: alice });
  expect(response.status).toBe(200);
  return response.body.Guid;
}

async function basketWithLine(): Promise<{ guid: string; basket: any }> {
  const guid = await newBasket();
  const added = await service.request('POST', `/basket/${guid}/line`, { token: alice, json: { ProjectGuid: project, Quantity: 2 } });
  expect(added.status).toBe(200);
  return { guid, basket: added.body.Basket };
}

const readBasket = async (guid: string) => (await service.request('GET', `/basket/${guid}`, { token: alice })).body;

describe('DynamoDB throttling', () => {
  it('answers a retryable 503 after the SDK’s bounded retries of a throttled read, and reads fine afterwards', async () => {
    const { guid, basket } = await basketWithLine();
    const fault = dynamoFault({ command: 'GetItemCommand', kind: 'dynamo-throughput' });
    const response = await service.request('GET', `/basket/${guid}`, { token: alice });
    expectRetryable(response);
    expect(response.status).toBe(503);
    expect(response.body.Error.Code).toBe('ServiceUnavailable');
    expect(fault.injected).toBe(await sdkAttempts()); // the SDK's own bounded retry, then it gives up
    removeFaults();
    expect(await readBasket(guid)).toEqual(basket);
  });

  it('rides out a short throttling burst inside the SDK retries: the write lands exactly once', async () => {
    const { guid } = await basketWithLine();
    const fault = dynamoFault({ command: isBasketWrite, kind: 'dynamo-throttling', times: 2 });
    const response = await service.request('POST', `/basket/${guid}/line`, { token: alice, json: { ProjectGuid: project, Quantity: 3 } });
    expect(response.status).toBe(200);
    expect(fault.injected).toBe(2);
    const basket = await readBasket(guid);
    expect(basket.Lines).toEqual([expect.objectContaining({ ProjectGuid: project, Quantity: 5 })]);
    expect(basket.OrderTotal).toBe(62.5);
  });

  it('refuses a line change under sustained throttling of the pricing read and leaves the basket as it was', async () => {
    const { guid, basket } = await basketWithLine();
    dynamoFault({ command: 'BatchGetItemCommand', kind: 'dynamo-throttling' });
    const response = await service.request('POST', `/basket/${guid}/line`, { token: alice, json: { ProjectGuid: secondProject, Quantity: 1 } });
    expectRetryable(response);
    removeFaults();
    expect(await readBasket(guid)).toEqual(basket);
    const retried = await service.request('POST', `/basket/${guid}/line`, { token: alice, json: { ProjectGuid: secondProject, Quantity: 1 } });
    expect(retried.status).toBe(200);
    expect(retried.body.Basket.OrderTotal).toBe(28);
  });

  it('refuses a basket creation under sustained write throttling and creates nothing', async () => {
    const before = await snapshotStore(service);
    dynamoFault({ command: isBasketWrite, kind: 'dynamo-throughput' });
    const response = await service.request('POST', '/basket', { token: alice });
    expectRetryable(response);
    removeFaults();
    expect(storeDiff(before, await snapshotStore(service))).toEqual([]);
  });
});

describe('conditional-check storms', () => {
  it('gives up after a bounded number of lost races with a retryable 503, changing nothing', async () => {
    const { guid, basket } = await basketWithLine();
    const fault = dynamoFault({ command: isBasketWrite, kind: 'dynamo-conditional' });
    const response = await service.request('PUT', `/basket/${guid}/line/1`, { token: alice, json: { ProjectGuid: project, Quantity: 9 } });
    expectRetryable(response);
    expect(response.status).toBe(503);
    expect(response.body.Error.Code).toBe('ConcurrentModification');
    expect(fault.injected).toBe(60); // retryOnConflict's bound; conditional failures are not retried by the SDK
    removeFaults();
    expect(await readBasket(guid)).toEqual(basket);
  });

  it('wins after a few lost races with an exact total', async () => {
    const { guid } = await basketWithLine();
    const fault = dynamoFault({ command: isBasketWrite, kind: 'dynamo-conditional', times: 5 });
    const response = await service.request('PUT', `/basket/${guid}/line/1`, { token: alice, json: { ProjectGuid: project, Quantity: 9 } });
    expect(response.status).toBe(200);
    expect(fault.injected).toBe(5);
    expect((await readBasket(guid)).OrderTotal).toBe(112.5);
  });
});

describe('timeouts and lost answers', () => {
  it('answers a retryable 503 when every attempt times out, and changes nothing', async () => {
    const { guid, basket } = await basketWithLine();
    const fault = dynamoFault({ command: isBasketWrite, kind: 'timeout' });
    const response = await service.request('DELETE', `/basket/${guid}/line/1`, { token: alice });
    expectRetryable(response);
    expect(fault.injected).toBe(await sdkAttempts());
    removeFaults();
    expect(await readBasket(guid)).toEqual(basket);
  });

  it('applies a line exactly once when the write landed but its answer was lost', async () => {
    const { guid } = await basketWithLine();
    const fault = dynamoFault({ command: isBasketWrite, kind: 'lost-response', times: 1 });
    const response = await service.request('POST', `/basket/${guid}/line`, { token: alice, json: { ProjectGuid: project, Quantity: 3 } });
    expect(fault.injected).toBe(1);
    const basket = await readBasket(guid);
    // Either the client is told it worked, or it is told to retry; never is the line applied twice.
    if (response.status === 200) expect(basket.Lines[0].Quantity).toBe(5);
    else {
      expectRetryable(response);
      expect([2, 5]).toContain(basket.Lines[0].Quantity);
    }
    expect(basket.OrderTotal).toBe(basket.Lines[0].Quantity * 12.5);
  });
});
