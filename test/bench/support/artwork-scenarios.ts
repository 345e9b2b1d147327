/**
 * The bench scenarios of orders that keep their artwork (issue 33): a 10-line order whose projects name
 * library items, its checkout and completion, the lab's read of its artwork, one of its items' DownloadLink
 * followed, and a checkout whose artwork needs more than one transaction (two lines of 120 items).
 */
import type { RequestOptions } from '../../support/service.ts';
import { multipartBody, pngOfSize } from '../../support/multipart.ts';
import type { World } from './world.ts';

export const ARTWORK_LINES = 10;
const ITEMS_PER_LINE = 3;
const LARGE_LINE_ITEMS = 120;

/** What a scenario needs, as scenarios.ts plans it. */
export interface ArtworkPlan {
  label: string;
  handler: string;
  method: string;
  path: string;
  options: RequestOptions;
  /** The items whose originals the handler signs downloads of (figure 2's bare side signs them too). */
  signs?: string[];
}

export interface Credentials {
  user: RequestOptions;
  site: RequestOptions;
  catalog: RequestOptions;
  fulfilment: RequestOptions;
  library: RequestOptions;
}

async function ok(world: World, method: string, path: string, options: RequestOptions): Promise<any> {
  const response = await world.service.request(method, path, options);
  if (response.status !== 200) throw new Error(`seeding ${method} ${path}: ${response.status} ${response.text}`);
  return response.body;
}

/** `count` library items pushed 10 at a time. */
async function items(world: World, library: RequestOptions, count: number): Promise<string[]> {
  const guids: string[] = [];
  while (guids.length < count) {
    const form = multipartBody(
      Array.from({ length: Math.min(10, count - guids.length) }, (_, index) => ({
        name: `image${index}`,
        filename: `${index}.png`,
        contentType: 'image/png',
        data: pngOfSize(4 * 1024 + guids.length + index),
      })),
    );
    const pushed = await ok(world, 'POST', '/library/multi/push', {
      ...library,
      body: form.body,
      headers: { 'Content-Type': form.contentType },
    });
    guids.push(...pushed.LibraryItems.map((item: { ItemGuid: string }) => item.ItemGuid));
  }
  return guids;
}

export async function artworkPlans(world: World, as: Credentials): Promise<ArtworkPlan[]> {
  const { newGuid } = await import('../../../functions/shared/ids.ts');
  const project = async (itemGuids: string[]) => {
    const guid = newGuid();
    await ok(world, 'PUT', `/project/${guid}`, {
      ...as.catalog,
      json: { UnitPrice: 9.5, Version: 1, ItemGuids: itemGuids },
    });
    return guid;
  };
  const basket = async (projects: string[]) => {
    const { Guid } = await ok(world, 'POST', '/basket', as.user);
    for (const ProjectGuid of projects)
      await ok(world, 'POST', `/basket/${Guid}/line`, { ...as.user, json: { ProjectGuid, Quantity: 1 } });
    return Guid as string;
  };
  const checkoutOf = async (basketGuid: string) =>
    String((await ok(world, 'POST', `/basket/${basketGuid}/checkout`, as.user)).CheckoutUrl)
      .split('/')
      .pop() as string;
  const artwork = await items(world, as.library, ARTWORK_LINES * ITEMS_PER_LINE);
  const projects: string[] = [];
  for (let line = 0; line < ARTWORK_LINES; line++)
    projects.push(await project(artwork.slice(line * ITEMS_PER_LINE, (line + 1) * ITEMS_PER_LINE)));
  const large = await items(world, as.library, 2 * LARGE_LINE_ITEMS);
  const largeProjects = [await project(large.slice(0, LARGE_LINE_ITEMS)), await project(large.slice(LARGE_LINE_ITEMS))];
  const toOrder = await checkoutOf(await basket(projects));
  const paid = await checkoutOf(await basket(projects));
  const { Order } = await ok(world, 'POST', `/checkout/${paid}/complete`, {
    ...as.site,
    json: { PaymentReference: 'bench-artwork' },
  });
  const read = await ok(world, 'GET', `/order/${Order.OrderGuid}/artwork`, as.fulfilment);
  const link = new URL(read.Lines[0].Items[0].DownloadLink as string);
  return [
    {
      label: `POST /basket/{guid}/checkout (artwork: ${ARTWORK_LINES} lines of ${ITEMS_PER_LINE} items)`,
      handler: 'checkout-basket',
      method: 'POST',
      path: `/basket/${await basket(projects)}/checkout`,
      options: as.user,
    },
    {
      label: `POST /basket/{guid}/checkout (artwork: 2 lines of ${LARGE_LINE_ITEMS} items, several transactions)`,
      handler: 'checkout-basket',
      method: 'POST',
      path: `/basket/${await basket(largeProjects)}/checkout`,
      options: as.user,
    },
    {
      label: `POST /checkout/{id}/complete (artwork: ${ARTWORK_LINES} lines)`,
      handler: 'complete-checkout',
      method: 'POST',
      path: `/checkout/${toOrder}/complete`,
      options: { ...as.site, json: { PaymentReference: 'bench-artwork' } },
    },
    {
      label: `GET /order/{guid}/artwork (${ARTWORK_LINES} lines of ${ITEMS_PER_LINE} items)`,
      handler: 'get-order-artwork',
      method: 'GET',
      path: `/order/${Order.OrderGuid}/artwork`,
      options: as.fulfilment,
      signs: artwork,
    },
    {
      label: 'GET /order/{guid}/artwork/{item} (a DownloadLink followed, no credential)',
      handler: 'follow-artwork-link',
      method: 'GET',
      path: `${link.pathname}${link.search}`,
      options: {},
      signs: [read.Lines[0].Items[0].ItemGuid as string],
    },
  ];
}
