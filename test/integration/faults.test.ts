/**
 * Nothing is lost: DynamoDB throttling, conditional-check storms, timeouts, lost answers and S3 failures in
 * the middle of an upload, injected through SDK middleware on the service's real clients. Each failure is
 * retried a bounded number of times, reaches the client as a 503 (or 500) that says it is retryable, and
 * leaves no half-written basket, order or orphaned object; a retry of the same request then succeeds.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestResponse, type TestService } from '../support/service.ts';
import { injectFault, type FaultHandle, type FaultRule } from '../support/faults.ts';
import { snapshotStore, storeDiff } from '../support/store-snapshot.ts';
import { multipartBody, pngOfSize, tinyPng } from '../support/multipart.ts';
import { SWEEP_AFTER_MS } from '../../functions/domain/library.ts';

let service: TestService;
let clients: typeof import('../../functions/shared/clients/dynamodb.ts') &
  typeof import('../../functions/shared/clients/s3.ts');
let alice: string;
let project: string;
let secondProject: string;
let siteKey: string;
let libraryKey: string;
/** A loopback image server for pulls (the service runs with PULL_ALLOW_LOOPBACK=true in this file). */
let images: Server;
let imagesUrl: string;
const installed: FaultHandle[] = [];
/** Big enough for a multipart upload of three 5 MiB parts. */
const LARGE_IMAGE = pngOfSize(12 * 1024 * 1024);

beforeAll(async () => {
  // The request path alone: its SDK calls are counted and failed on purpose, which renditions made in the
  // background (in AWS, by a function of their own) would take part in.
  service = await startTestService({ env: { PULL_ALLOW_LOOPBACK: 'true' }, renditions: false });
  clients = {
    ...(await import('../../functions/shared/clients/dynamodb.ts')),
    ...(await import('../../functions/shared/clients/s3.ts')),
  };
  alice = await service.token('alice');
  project = await service.project(12.5);
  secondProject = await service.project(3);
  siteKey = await service.apiKey('faults-site', 'site');
  libraryKey = await service.apiKey('faults-library', 'library');
  images = createServer((request, response) => {
    const body = request.url === '/large.png' ? LARGE_IMAGE : tinyPng();
    response.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(body.length) });
    response.end(body);
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', () => resolve()));
  imagesUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
});
afterEach(() => {
  for (const handle of installed.splice(0)) handle.remove();
});
afterAll(async () => {
  await new Promise((resolve) => images?.close(resolve));
  await service?.close();
});

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

type WireItem = { SK?: { S?: string } } | undefined;
const isBasketItem = (item: WireItem) => String(item?.SK?.S ?? '').startsWith('BASKET#');
/** A write of a basket item: its own PutItem, or a transaction (creation, deletion) with a basket among its actions. */
const isBasketWrite = (name: string, input: Record<string, unknown>) =>
  (name === 'PutItemCommand' && isBasketItem(input.Item as WireItem)) ||
  (name === 'TransactWriteItemsCommand' &&
    (input.TransactItems as { Put?: { Item: WireItem }; Delete?: { Key: WireItem } }[]).some((action) =>
      isBasketItem(action.Put?.Item ?? action.Delete?.Key),
    ));

async function newBasket(): Promise<string> {
  const response = await service.request('POST', '/basket', { token: alice });
  expect(response.status).toBe(200);
  return response.body.Guid;
}

async function basketWithLine(): Promise<{ guid: string; basket: any }> {
  const guid = await newBasket();
  const added = await service.request('POST', `/basket/${guid}/line`, {
    token: alice,
    json: { ProjectGuid: project, Quantity: 2 },
  });
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
    const response = await service.request('POST', `/basket/${guid}/line`, {
      token: alice,
      json: { ProjectGuid: project, Quantity: 3 },
    });
    expect(response.status).toBe(200);
    expect(fault.injected).toBe(2);
    const basket = await readBasket(guid);
    expect(basket.Lines).toEqual([expect.objectContaining({ ProjectGuid: project, Quantity: 5 })]);
    expect(basket.OrderTotal).toBe(62.5);
  });

  it('refuses a line change under sustained throttling of the pricing read and leaves the basket as it was', async () => {
    const { guid, basket } = await basketWithLine();
    dynamoFault({ command: 'BatchGetItemCommand', kind: 'dynamo-throttling' });
    const response = await service.request('POST', `/basket/${guid}/line`, {
      token: alice,
      json: { ProjectGuid: secondProject, Quantity: 1 },
    });
    expectRetryable(response);
    removeFaults();
    expect(await readBasket(guid)).toEqual(basket);
    const retried = await service.request('POST', `/basket/${guid}/line`, {
      token: alice,
      json: { ProjectGuid: secondProject, Quantity: 1 },
    });
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
    const response = await service.request('PUT', `/basket/${guid}/line/1`, {
      token: alice,
      json: { ProjectGuid: project, Quantity: 9 },
    });
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
    const response = await service.request('PUT', `/basket/${guid}/line/1`, {
      token: alice,
      json: { ProjectGuid: project, Quantity: 9 },
    });
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
    const response = await service.request('POST', `/basket/${guid}/line`, {
      token: alice,
      json: { ProjectGuid: project, Quantity: 3 },
    });
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

const isWrite = (name: string) =>
  [
    'PutItemCommand',
    'UpdateItemCommand',
    'DeleteItemCommand',
    'BatchWriteItemCommand',
    'TransactWriteItemsCommand',
  ].includes(name);

/** A basket with a line and a checkout of it: the checkout id. */
async function checkedOutBasket(): Promise<{ basketGuid: string; checkoutId: string }> {
  const { guid } = await basketWithLine();
  const checkout = await service.request('POST', `/basket/${guid}/checkout`, { token: alice });
  expect(checkout.status).toBe(200);
  return { basketGuid: guid, checkoutId: checkout.body.CheckoutUrl.split('/').pop() };
}

const complete = (checkoutId: string) =>
  service.request('POST', `/checkout/${checkoutId}/complete`, {
    apiKey: siteKey,
    json: { PaymentReference: `pay-${checkoutId.slice(0, 6)}` },
  });

async function ordersOf(): Promise<{ OrderGuid: string; OrderTotal: number }[]> {
  const response = await service.request('GET', '/orders', { token: alice });
  expect(response.status).toBe(200);
  return response.body.Orders;
}

/** The DynamoDB writes a clean checkout completion makes, in order (learned, not hard-coded). */
async function completionWrites(): Promise<number> {
  const { checkoutId } = await checkedOutBasket();
  const recorder = dynamoFault({ command: () => false, kind: 'timeout' });
  expect((await complete(checkoutId)).status).toBe(200);
  const writes = recorder.commands.filter(isWrite).length;
  removeFaults();
  return writes;
}

describe('checkout completion interrupted at each of its writes', () => {
  it('answers retryable, and a retry finishes the job with exactly one order', async () => {
    const writes = await completionWrites();
    expect(writes).toBeGreaterThan(0);
    for (let failing = 0; failing < writes; failing++) {
      // Timeouts rather than throttling here: the same failure for the client, without the SDK's long throttling backoff.
      for (const kind of ['timeout', 'lost-response'] as const) {
        const { basketGuid, checkoutId } = await checkedOutBasket();
        const before = (await ordersOf()).length;
        // From the failing write on, nothing gets through: the function died at that step.
        dynamoFault({ command: (name) => isWrite(name), kind, skip: failing });
        const interrupted = await complete(checkoutId);
        removeFaults();
        if (interrupted.status !== 200) expectRetryable(interrupted);

        const finished = await complete(checkoutId);
        expect(finished.status, `write ${failing} ${kind}: ${finished.text}`).toBe(200);
        const again = await complete(checkoutId);
        expect(again.body.Order.OrderGuid).toBe(finished.body.Order.OrderGuid);
        if (interrupted.status === 200) expect(interrupted.body.Order.OrderGuid).toBe(finished.body.Order.OrderGuid);

        const orders = await ordersOf();
        expect(orders.length, `write ${failing} ${kind}`).toBe(before + 1);
        expect(orders.filter((order) => order.OrderGuid === finished.body.Order.OrderGuid)).toHaveLength(1);
        expect(finished.body.Order.OrderTotal).toBe(25);
        expect((await service.request('GET', `/basket/${basketGuid}`, { token: alice })).status).toBe(404);
      }
    }
  });
});

describe('library writes failing half-way', () => {
  const pushOne = (data: Buffer = tinyPng()) => {
    const { body, contentType } = multipartBody([{ name: 'image', filename: 'a.png', contentType: 'image/png', data }]);
    return service.request('POST', '/library/push', {
      apiKey: libraryKey,
      body,
      headers: { 'Content-Type': contentType },
    });
  };
  const pushThree = () => {
    const { body, contentType } = multipartBody(
      ['a', 'b', 'c'].map((name) => ({ name, filename: `${name}.png`, contentType: 'image/png', data: tinyPng() })),
    );
    return service.request('POST', '/library/multi/push', {
      apiKey: libraryKey,
      body,
      headers: { 'Content-Type': contentType },
    });
  };

  async function expectRetryableAndNothingStored(send: () => Promise<TestResponse>): Promise<void> {
    const before = await snapshotStore(service);
    const response = await send();
    expectRetryable(response);
    removeFaults();
    expect(storeDiff(before, await snapshotStore(service))).toEqual([]);
  }

  it('leaves no object when S3 fails the upload of a push', async () => {
    s3Fault({ command: (name) => name === 'PutObjectCommand' || name === 'UploadPartCommand', kind: 's3-internal' });
    await expectRetryableAndNothingStored(() => pushOne());
    expect((await pushOne()).status).toBe(200);
  });

  it('leaves no object when S3 stored the image but its answer was lost', async () => {
    const fault = s3Fault({ command: 'PutObjectCommand', kind: 'lost-response' });
    await expectRetryableAndNothingStored(() => pushOne());
    expect(fault.injected).toBeGreaterThan(0);
  });

  it('leaves no orphaned object when the item write fails after the upload', async () => {
    dynamoFault({ command: (name) => isWrite(name), kind: 'timeout' });
    await expectRetryableAndNothingStored(() => pushOne());
  });

  describe('a push whose ingest intent fails', () => {
    const isIntentWrite = (name: string, input: Record<string, unknown>) =>
      name === 'PutItemCommand' &&
      String((input.Item as { PK?: { S?: string } } | undefined)?.PK?.S ?? '').startsWith('INGEST#');
    const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    /** Errors nobody handled while `send` ran and shortly after: vitest would fail the run for them, after every test passed. */
    async function unhandledDuring(send: () => Promise<void>): Promise<unknown[]> {
      const seen: unknown[] = [];
      const record = (error: unknown) => seen.push(error);
      process.on('unhandledRejection', record);
      process.on('uncaughtException', record);
      try {
        await send();
        await later(200);
      } finally {
        process.off('unhandledRejection', record);
        process.off('uncaughtException', record);
      }
      return seen;
    }

    /** Resolves when the image's PutObject is sent; `refuse`: S3 then fails it at once. */
    function watchPutObject(refuse: boolean): Promise<void> {
      let sent!: () => void;
      const sending = new Promise<void>((resolve) => (sent = resolve));
      const isPut = (name: string) => {
        if (name === 'PutObjectCommand') sent();
        return refuse && name === 'PutObjectCommand';
      };
      s3Fault({ command: isPut, kind: 's3-internal' });
      return sending;
    }

    const cases: [string, () => Promise<unknown>][] = [
      ['at once', () => Promise.resolve()],
      ['while the upload holds back its last byte', () => watchPutObject(false).then(() => later(30))],
      ['after S3 refused the upload (the request is over)', () => watchPutObject(true).then(() => later(30))],
    ];
    for (const [when, failAfter] of cases) {
      it(`answers retryable, stores nothing and leaves no unhandled error: intent failing ${when}`, async () => {
        const seen = await unhandledDuring(async () => {
          dynamoFault({ command: isIntentWrite, kind: 'timeout', after: failAfter() });
          await expectRetryableAndNothingStored(() => pushOne(pngOfSize(300 * 1024)));
        });
        expect(seen).toEqual([]);
      });
    }
  });

  it('leaves none of the objects of a multi push when the second upload fails', async () => {
    s3Fault({ command: 'PutObjectCommand', kind: 's3-slowdown', skip: 1 });
    await expectRetryableAndNothingStored(pushThree);
  });

  it('commits nothing of a multi push whose commit transaction fails, and leaves its objects to the sweeper', async () => {
    const recorder = dynamoFault({ command: () => false, kind: 'timeout' });
    expect((await pushThree()).status).toBe(200);
    const writes = recorder.commands.filter(isWrite).length;
    removeFaults();
    // The commit (the last write) times out on every SDK attempt: its outcome is unknown to the handler, so
    // it deletes no object (they might be committed); the intent's expiry has the sweeper remove them.
    dynamoFault({ command: (name) => isWrite(name), kind: 'timeout', skip: writes - 1, times: await sdkAttempts() });
    const before = await snapshotStore(service);
    expectRetryable(await pushThree());
    removeFaults();
    const left = storeDiff(before, await snapshotStore(service));
    expect(left.filter((change) => !/INGEST#|object added: library\//.test(change))).toEqual([]);
    await service.expireTtl(Date.now() + SWEEP_AFTER_MS + 60_000);
    // Nothing of it is left (earlier tests' intents expire in the same run: those are removals).
    expect(storeDiff(before, await snapshotStore(service)).filter((change) => change.includes(' added: '))).toEqual([]);
  });

  it('aborts a multipart upload whose part fails in the middle, and stores nothing', async () => {
    const fault = s3Fault({ command: 'UploadPartCommand', kind: 's3-internal', skip: 1 });
    await expectRetryableAndNothingStored(() =>
      service.request('POST', '/library/pull', { apiKey: libraryKey, json: { Url: `${imagesUrl}/large.png` } }),
    );
    expect(fault.injected).toBeGreaterThan(0);
    expect(fault.commands).toContain('AbortMultipartUploadCommand');
    const retried = await service.request('POST', '/library/pull', {
      apiKey: libraryKey,
      json: { Url: `${imagesUrl}/large.png` },
    });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.LibraryItem.FileSize).toBe(LARGE_IMAGE.length);
  });
});
