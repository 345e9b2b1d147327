/**
 * One realistic, successful request per endpoint, against a small fixed data set of one user (a few
 * baskets with lines, projects, checkouts, two orders, a library item). Each scenario is the event the real front builds for it;
 * benchmarks replay it in-process. Endpoints whose handler does not exist yet are left out.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import type { RequestOptions } from '../../support/service.ts';
import { multipartBody, pngOfSize } from '../../support/multipart.ts';
import { presentHandlers, type World } from './world.ts';
import { MAX_BUILDER_ITEMS } from '../../../functions/domain/library.ts';
import { artworkPlans } from './artwork-scenarios.ts';

export interface Scenario {
  /** Row label: the route, and what the request does when the route has several cases. */
  label: string;
  handler: string;
  event: APIGatewayProxyEvent;
  /** AWS SDK work the handler does besides DynamoDB calls (signing a presigned POST); figure 2's bare side does it too. */
  bareSdkWork?: (s3: S3Client) => Promise<unknown>;
}

interface Planned {
  label: string;
  handler: string;
  method: string;
  path: string;
  options: RequestOptions;
  bareSdkWork?: Scenario['bareSdkWork'];
}

/** The presigned POST that POST /library/upload signs (store/image-object-store.ts presignUpload), with the same inputs. */
async function signUploadPost(s3: S3Client): Promise<unknown> {
  const { config } = await import('../../../functions/shared/config.ts');
  const { newGuid } = await import('../../../functions/shared/ids.ts');
  return createPresignedPost(s3, {
    Bucket: config.bucketName,
    Key: `uploads/${newGuid()}`,
    Conditions: [['content-length-range', 1, config.uploadMaxBytes]],
    Expires: config.uploadExpirySeconds,
  });
}

/** The presigned GETs the library reads sign (store/download-signer.ts), with the same inputs, on the bare client. */
function signDownloads(items: { objectKey: string; mimeType: string }[]): (s3: S3Client) => Promise<unknown> {
  return async (s3) => {
    const { config } = await import('../../../functions/shared/config.ts');
    const { presignDownloads } = await import('../../../functions/store/download-signer.ts');
    return presignDownloads(
      s3,
      config.bucketName,
      // The originals: the bench world makes no renditions.
      items.map((item) => ({ objectKey: item.objectKey, contentType: item.mimeType, disposition: 'attachment' })),
      config.downloadUrlSeconds,
    );
  };
}

/** A product builder token naming `count` library items pushed `perPush` at a time (multi push), minted in reverse order. */
async function builderOf(
  world: World,
  library: RequestOptions,
  count: number,
  perPush: number,
): Promise<{ token: string; itemGuids: string[] }> {
  const itemGuids: string[] = [];
  while (itemGuids.length < count) {
    const images = Array.from({ length: Math.min(perPush, count - itemGuids.length) }, (_, index) => ({
      name: `image${index}`,
      filename: `${index}.png`,
      contentType: 'image/png',
      data: pngOfSize(4 * 1024 + itemGuids.length + index),
    }));
    const form = multipartBody(images);
    const pushed = await expectOk(world, 'POST', '/library/multi/push', {
      ...library,
      body: form.body,
      headers: { 'Content-Type': form.contentType },
    });
    itemGuids.push(...pushed.LibraryItems.map((item: { ItemGuid: string }) => item.ItemGuid));
  }
  const minted = await expectOk(world, 'POST', '/library/builder', {
    ...library,
    json: { Guids: [...itemGuids].reverse() },
  });
  return { token: String(minted.ProductBuilderUrl).split('/').pop() as string, itemGuids };
}

/** What the reads sign for these items: their object keys and sniffed types, from the store. */
async function downloadsOf(itemGuids: string[]): Promise<{ objectKey: string; mimeType: string }[]> {
  const { getItems } = await import('../../../functions/store/library-store.ts');
  const items = new Map((await getItems(itemGuids)).map((item) => [item.itemGuid, item]));
  return itemGuids.map((guid) => items.get(guid) as { objectKey: string; mimeType: string });
}

/** The largest builder link (domain/library.ts). */
export const BUILDER_ITEMS = MAX_BUILDER_ITEMS;

/** Items the bench user claims (GET /library, a repeated claim) and one more claimed item to delete. */
async function userLibraryOf(
  world: World,
  library: RequestOptions,
  user: RequestOptions,
): Promise<{ url: string; itemGuids: string[]; deleted: string }> {
  const pushed = async (count: number) => {
    const images = Array.from({ length: count }, (_, index) => ({
      name: `image${index}`,
      filename: `${index}.png`,
      contentType: 'image/png',
      data: pngOfSize(4 * 1024 + index),
    }));
    const form = multipartBody(images);
    const answer = await expectOk(world, 'POST', '/library/multi/push', {
      ...library,
      body: form.body,
      headers: { 'Content-Type': form.contentType },
    });
    await expectOk(world, 'POST', '/library/claim', { ...user, json: { ProductBuilderUrl: answer.ProductBuilderUrl } });
    return {
      url: answer.ProductBuilderUrl as string,
      itemGuids: answer.LibraryItems.map((item: { ItemGuid: string }) => item.ItemGuid) as string[],
    };
  };
  const claimed = await pushed(USER_LIBRARY_ITEMS);
  const [deleted] = (await pushed(1)).itemGuids;
  return { ...claimed, deleted: deleted as string };
}

export const USER_LIBRARY_ITEMS = 3;

/** The DeleteObject that DELETE /library/{guid} sends (store/image-object-store.ts deleteImageObject). */
/** An erasure's S3 work: the original and its renditions, side by side, as the handler deletes them. */
function deleteObjectOf(objectKey: string): (s3: S3Client) => Promise<unknown> {
  return async (s3) => {
    const { config } = await import('../../../functions/shared/config.ts');
    const { imageObjectKeys } = await import('../../../functions/domain/renditions.ts');
    return Promise.all(
      imageObjectKeys(objectKey).map((key) =>
        s3.send(new DeleteObjectCommand({ Bucket: config.bucketName, Key: key })),
      ),
    );
  };
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
  const user: RequestOptions = { token };
  const site: RequestOptions = { apiKey: await world.service.apiKey('bench-site', 'site') };
  const catalog: RequestOptions = { apiKey: await world.service.apiKey('bench-catalog', 'catalog') };
  const fulfilment: RequestOptions = { apiKey: await world.service.apiKey('bench-fulfilment', 'fulfilment') };

  const photoBook = await world.service.project(29.99);
  const canvas = await world.service.project(49.5);
  const newProject = (await import('../../../functions/shared/ids.ts')).newGuid();
  const basket = async (lines: [string, number][]) => {
    const { Guid } = await expectOk(world, 'POST', '/basket', user);
    for (const [ProjectGuid, Quantity] of lines)
      await expectOk(world, 'POST', `/basket/${Guid}/line`, { ...user, json: { ProjectGuid, Quantity } });
    return Guid as string;
  };
  const full = await basket([
    [photoBook, 2],
    [canvas, 1],
  ]);
  const empty = await basket([]);
  const checkedOut = await basket([[photoBook, 1]]);
  // A line priced before its project's price changed: the checkout reprices it and saves the basket.
  const repricedProject = await world.service.project(19.99);
  const stalePrice = await basket([[repricedProject, 2]]);
  await expectOk(world, 'PUT', `/project/${repricedProject}`, { ...catalog, json: { UnitPrice: 24.99, Version: 2 } });
  const checkout = async (basketGuid: string) =>
    String((await expectOk(world, 'POST', `/basket/${basketGuid}/checkout`, user)).CheckoutUrl)
      .split('/')
      .pop() as string;
  const checkoutId = await checkout(checkedOut);
  const pendingCheckout = await checkout(await basket([[canvas, 1]]));
  let orderGuid = '';
  if (present.has('complete-checkout')) {
    for (const lines of [
      [
        [photoBook, 1],
        [canvas, 2],
      ],
      [[canvas, 1]],
    ] as [string, number][][]) {
      const paid = await checkout(await basket(lines));
      orderGuid = (
        await expectOk(world, 'POST', `/checkout/${paid}/complete`, {
          ...site,
          json: { PaymentReference: 'bench' },
        })
      ).Order.OrderGuid;
    }
  }
  const libraryKey = await world.service.apiKey('bench-library', 'library');
  const library: RequestOptions = { apiKey: libraryKey };
  let itemGuid = '';
  if (present.has('push-library-item')) {
    const form = multipartBody([
      { name: 'image', filename: 'a.png', contentType: 'image/png', data: pngOfSize(32 * 1024) },
    ]);
    itemGuid = (
      await expectOk(world, 'POST', '/library/push', {
        ...library,
        body: form.body,
        headers: { 'Content-Type': form.contentType },
      })
    ).LibraryItem.ItemGuid;
  }
  const { config } = await import('../../../functions/shared/config.ts');
  const builder = present.has('get-builder')
    ? await builderOf(world, library, BUILDER_ITEMS, Math.min(10, config.libraryMaxItems))
    : { token: '', itemGuids: [] };
  const userLibrary = present.has('claim-library-items')
    ? await userLibraryOf(world, library, user)
    : { url: '', itemGuids: [], deleted: '' };
  const [deletedObject] = userLibrary.deleted ? await downloadsOf([userLibrary.deleted]) : [];
  const artwork: Planned[] = [];
  if (present.has('get-order-artwork'))
    for (const { signs, ...plan } of await artworkPlans(world, { user, site, catalog, fulfilment, library }))
      artwork.push({ ...plan, ...(signs ? { bareSdkWork: signDownloads(await downloadsOf(signs)) } : {}) });

  const planned: Planned[] = [
    { label: 'GET /health', handler: 'get-health', method: 'GET', path: '/health', options: {} },
    { label: 'GET /openapi.json', handler: 'get-openapi', method: 'GET', path: '/openapi.json', options: {} },
    { label: 'POST /basket', handler: 'create-basket', method: 'POST', path: '/basket', options: user },
    { label: 'GET /baskets (3 baskets)', handler: 'list-baskets', method: 'GET', path: '/baskets', options: user },
    {
      label: 'GET /basket/{guid} (2 lines)',
      handler: 'get-basket',
      method: 'GET',
      path: `/basket/${full}`,
      options: user,
    },
    {
      label: 'DELETE /basket/{guid}',
      handler: 'delete-basket',
      method: 'DELETE',
      path: `/basket/${empty}`,
      options: user,
    },
    {
      label: 'POST /basket/{guid}/line',
      handler: 'add-basket-line',
      method: 'POST',
      path: `/basket/${full}/line`,
      options: { ...user, json: { ProjectGuid: photoBook, Quantity: 1 } },
    },
    {
      label: 'PUT /basket/{guid}/line/{id}',
      handler: 'update-basket-line',
      method: 'PUT',
      path: `/basket/${full}/line/2`,
      options: { ...user, json: { ProjectGuid: canvas, Quantity: 3 } },
    },
    {
      label: 'DELETE /basket/{guid}/line/{id}',
      handler: 'delete-basket-line',
      method: 'DELETE',
      path: `/basket/${full}/line/1`,
      options: user,
    },
    {
      label: 'POST /basket/{guid}/checkout',
      handler: 'checkout-basket',
      method: 'POST',
      path: `/basket/${full}/checkout`,
      options: user,
    },
    {
      label: 'POST /basket/{guid}/checkout (a price changed)',
      handler: 'checkout-basket',
      method: 'POST',
      path: `/basket/${stalePrice}/checkout`,
      options: user,
    },
    {
      label: 'PUT /project/{guid}',
      handler: 'put-project',
      method: 'PUT',
      path: `/project/${newProject}`,
      options: { ...catalog, json: { UnitPrice: 12.5, Version: 1 } },
    },
    {
      label: 'GET /project/{guid}',
      handler: 'get-project',
      method: 'GET',
      path: `/project/${photoBook}`,
      options: catalog,
    },
    {
      label: 'GET /checkout/{id}',
      handler: 'get-checkout',
      method: 'GET',
      path: `/checkout/${checkoutId}`,
      options: site,
    },
    {
      label: 'POST /checkout/{id}/complete',
      handler: 'complete-checkout',
      method: 'POST',
      path: `/checkout/${pendingCheckout}/complete`,
      options: { ...site, json: { PaymentReference: 'bench' } },
    },
    { label: 'GET /orders (2 orders)', handler: 'list-orders', method: 'GET', path: '/orders', options: user },
    {
      label: 'GET /orders?projectguid=',
      handler: 'list-orders',
      method: 'GET',
      path: `/orders?projectguid=${photoBook}`,
      options: user,
    },
    { label: 'GET /order/{guid}', handler: 'get-order', method: 'GET', path: `/order/${orderGuid}`, options: user },
    {
      label: 'PUT /order/{guid}/status',
      handler: 'update-order-status',
      method: 'PUT',
      path: `/order/${orderGuid}/status`,
      options: { ...fulfilment, json: { Status: 'Processing' } },
    },
    {
      label: 'POST /library/{guid}/builder',
      handler: 'get-item-builder-url',
      method: 'POST',
      path: `/library/${itemGuid}/builder`,
      options: library,
    },
    {
      label: 'POST /library/builder',
      handler: 'get-items-builder-url',
      method: 'POST',
      path: '/library/builder',
      options: { ...library, json: { Guids: [itemGuid] } },
    },
    {
      label: 'POST /library/upload',
      handler: 'create-library-upload',
      method: 'POST',
      path: '/library/upload',
      options: library,
      bareSdkWork: signUploadPost,
    },
    {
      label: 'GET /library/{guid}?printWidthMm=&printHeightMm=',
      handler: 'get-library-item',
      method: 'GET',
      path: `/library/${itemGuid}?printWidthMm=150&printHeightMm=100`,
      options: library,
      bareSdkWork: signDownloads(itemGuid ? await downloadsOf([itemGuid]) : []),
    },
    {
      label: `GET /builder/{token} (${BUILDER_ITEMS} items)`,
      handler: 'get-builder',
      method: 'GET',
      path: `/builder/${builder.token}`,
      options: site,
      bareSdkWork: signDownloads(await downloadsOf([...builder.itemGuids].reverse())),
    },
    {
      label: `POST /library/claim (${USER_LIBRARY_ITEMS} items, repeated)`,
      handler: 'claim-library-items',
      method: 'POST',
      path: '/library/claim',
      options: { ...user, json: { ProductBuilderUrl: userLibrary.url } },
      bareSdkWork: signDownloads(await downloadsOf(userLibrary.itemGuids)),
    },
    {
      label: `GET /library (${USER_LIBRARY_ITEMS + 1} items)`,
      handler: 'list-library',
      method: 'GET',
      path: '/library',
      options: user,
      bareSdkWork: signDownloads(await downloadsOf([...userLibrary.itemGuids, userLibrary.deleted])),
    },
    {
      label: 'DELETE /library/{guid}',
      handler: 'delete-library-item',
      method: 'DELETE',
      path: `/library/${userLibrary.deleted}`,
      options: user,
      ...(deletedObject ? { bareSdkWork: deleteObjectOf(deletedObject.objectKey) } : {}),
    },
    ...artwork,
  ];

  const scenarios: Scenario[] = [];
  for (const plan of planned) {
    // Order and library scenarios need the order and push handlers to seed their data.
    if (!present.has(plan.handler) || plan.path.includes('//') || plan.path.endsWith('/')) continue;
    const event = await world.capture(plan.method, plan.path, plan.options);
    scenarios.push({
      label: plan.label,
      handler: plan.handler,
      event,
      ...(plan.bareSdkWork ? { bareSdkWork: plan.bareSdkWork } : {}),
    });
  }
  return scenarios;
}

/**
 * Fills the table with other users' baskets (one user each, two lines), straight through the basket
 * store, `parallel` writes at a time. Returns how many exist afterwards.
 */
export async function seedOtherBaskets(total: number, already: number, parallel = 16): Promise<number> {
  const { createBasketAction } = await import('../../../functions/store/basket-store.ts');
  const { transact } = await import('../../../functions/store/transaction.ts');
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
      await transact([createBasketAction(basket)]);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return total;
}
