/**
 * The end-to-end smoke flow, through the public interface only, against any base URL: a deployed stage or
 * `npm start`. bin/smoke.ts runs it from the command line; test/integration/smoke.test.ts runs it against
 * the local service, so the deployed API and the local one are held to the same flow.
 *
 * It creates what it needs under fresh ids (a project price, a basket, an order, library items) and
 * leaves the order side: orders cannot be deleted through the interface. The library items it claims for
 * the test user and then deletes (records and images).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ApiKeyScope } from '../functions/auth/principal.ts';

export interface SmokeOptions {
  /** Base URL of the API, e.g. https://abc.execute-api.eu-west-1.amazonaws.com/prod */
  url: string;
  /** A bearer token of a test user. */
  token: string;
  /** An API key of each scope: `library` (client app), `site` (checkout site), `catalog`, `fulfilment`. */
  keys: Record<ApiKeyScope, string>;
  /** A public image URL the service may fetch; without it the pull step is skipped. */
  imageUrl?: string;
  log?: (line: string) => void;
  /** The HTTP client; tests pass one that notes which route is being called. */
  fetch?: typeof fetch;
}

export interface SmokeResult {
  passed: string[];
  skipped: string[];
}

/** A valid 1x1 PNG: the smallest image every sniffer recognises. */
export const SMOKE_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex').toUpperCase();
const hyphenate = (guid: string) =>
  `${guid.slice(0, 8)}-${guid.slice(8, 12)}-${guid.slice(12, 16)}-${guid.slice(16, 20)}-${guid.slice(20)}`;

class SmokeFailure extends Error {}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new SmokeFailure(message);
}

export async function runSmoke(options: SmokeOptions): Promise<SmokeResult> {
  const base = options.url.replace(/\/+$/, '');
  const log = options.log ?? (() => {});
  const send = options.fetch ?? fetch;
  const result: SmokeResult = { passed: [], skipped: [] };

  async function call(
    method: string,
    path: string,
    init: { token?: string; apiKey?: string; json?: unknown; form?: FormData; expect?: number } = {},
  ) {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (init.token) headers.Authorization = `Bearer ${init.token}`;
    if (init.apiKey) headers['X-SERVICE-API-Key'] = init.apiKey;
    let body: string | FormData | undefined;
    if (init.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(init.json);
    } else if (init.form) {
      body = init.form;
    }
    const response = await send(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    const expected = init.expect ?? 200;
    check(
      response.status === expected,
      `${method} ${path}: expected ${expected}, got ${response.status}: ${text.slice(0, 500)}`,
    );
    check(
      (response.headers.get('content-type') ?? '').startsWith('application/json'),
      `${method} ${path}: content type ${response.headers.get('content-type')}, expected JSON`,
    );
    return JSON.parse(text) as any;
  }

  async function step(name: string, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (error) {
      throw new SmokeFailure(`step "${name}" failed: ${(error as Error).message}`, { cause: error });
    }
    result.passed.push(name);
    log(`ok   ${name}`);
  }

  const user = options.token;
  const { keys } = options;
  let projectGuid = '';
  let basketGuid = '';
  let checkoutId = '';
  let orderGuid = '';
  const itemGuids: string[] = [];
  let builderToken = '';
  let builderUrl = '';

  await step('health', async () => {
    check((await call('GET', '/health')).Status === 'ok', 'health is not ok');
  });

  await step('credentials are required', async () => {
    const refused = await call('GET', '/baskets', { expect: 401 });
    check(typeof refused.Error?.Code === 'string', 'a 401 without the JSON error shape');
  });

  await step('project price (catalog key)', async () => {
    projectGuid = randomUUID().replaceAll('-', '');
    const project = await call('PUT', `/project/${projectGuid}`, {
      apiKey: keys.catalog,
      json: { UnitPrice: 12.5, Version: 3 },
    });
    check(
      project.ProjectGuid === projectGuid && project.UnitPrice === 12.5,
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
      snapshot.Checkout.BasketGuid === basketGuid && snapshot.Checkout.OrderTotal === 50,
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

  await step('push', async () => {
    const form = new FormData();
    form.append('image', new Blob([SMOKE_PNG], { type: 'image/png' }), 'smoke.png');
    const pushed = await call('POST', '/library/push', { apiKey: keys.library, form });
    const item = pushed.LibraryItem;
    check(
      item.FileMimeType === 'image/png' && item.FileSize === SMOKE_PNG.length && item.FileMd5 === md5(SMOKE_PNG),
      `unexpected item ${JSON.stringify(item)}`,
    );
    check(/^https?:\/\//.test(pushed.ProductBuilderUrl), 'no absolute ProductBuilderUrl');
    itemGuids.push(item.ItemGuid);
  });

  if (options.imageUrl) {
    await step('pull', async () => {
      const pulled = await call('POST', '/library/pull', { apiKey: keys.library, json: { Url: options.imageUrl } });
      const item = pulled.LibraryItem;
      check(
        /^image\//.test(item.FileMimeType) && item.FileSize > 0 && /^[0-9A-F]{32}$/.test(item.FileMd5),
        `unexpected item ${JSON.stringify(item)}`,
      );
      itemGuids.push(item.ItemGuid);
    });
  } else {
    result.skipped.push('pull');
    log('skip pull (no --image-url: give a public image URL the service may fetch)');
  }

  await step('large-file upload (presigned)', async () => {
    const ticket = await call('POST', '/library/upload', { apiKey: keys.library });
    const form = new FormData();
    for (const [name, value] of Object.entries(ticket.Upload.Fields as Record<string, string>))
      form.append(name, value);
    form.append('file', new Blob([SMOKE_PNG], { type: 'image/png' }), 'smoke.png');
    const stored = await send(ticket.Upload.Url, { method: 'POST', body: form });
    check(
      stored.status >= 200 && stored.status < 300,
      `the presigned upload answered ${stored.status}: ${(await stored.text()).slice(0, 300)}`,
    );
    const completed = await call('POST', `/library/upload/${ticket.ItemGuid}/complete`, { apiKey: keys.library });
    check(
      completed.LibraryItem.ItemGuid === ticket.ItemGuid && completed.LibraryItem.FileMd5 === md5(SMOKE_PNG),
      `unexpected item ${JSON.stringify(completed)}`,
    );
    itemGuids.push(ticket.ItemGuid);
  });

  await step('builder', async () => {
    const one = await call('POST', `/library/${itemGuids[0]}/builder`, { apiKey: keys.library });
    check(/^https?:\/\//.test(one.ProductBuilderUrl), `unexpected builder answer ${JSON.stringify(one)}`);
    const many = await call('POST', '/library/builder', {
      apiKey: keys.library,
      json: { Guids: itemGuids.map(hyphenate) },
    });
    check(/^https?:\/\//.test(many.ProductBuilderUrl), `unexpected builder answer ${JSON.stringify(many)}`);
    builderUrl = many.ProductBuilderUrl;
    builderToken = new URL(builderUrl).pathname.split('/').pop() ?? '';
  });

  await step('library read', async () => {
    const { LibraryItem: item } = await call('GET', `/library/${itemGuids[0]}?printWidthMm=100&printHeightMm=150`, {
      apiKey: keys.library,
    });
    check(
      item.Width === 1 && item.Height === 1 && item.PrintQuality?.Rating === 'Poor',
      `unexpected item ${JSON.stringify(item)}`,
    );
    const download = await send(item.DownloadUrl);
    const bytes = new Uint8Array(await download.arrayBuffer());
    check(
      download.status === 200 && md5(bytes) === md5(SMOKE_PNG),
      `the download URL answered ${download.status} with other bytes`,
    );
    check(
      download.headers.get('content-type') === 'image/png',
      `the download URL answered ${download.headers.get('content-type')}`,
    );
  });

  await step('builder resolution (site key)', async () => {
    const { Builder: builder } = await call('GET', `/builder/${builderToken}`, { apiKey: keys.site });
    check(
      JSON.stringify(builder.Items.map((item: { ItemGuid: string }) => item.ItemGuid)) === JSON.stringify(itemGuids),
      `unexpected builder ${JSON.stringify(builder)}`,
    );
  });

  await step('user library (claim, list, delete)', async () => {
    const guidsOf = (body: { LibraryItems: { ItemGuid: string }[] }) => body.LibraryItems.map((item) => item.ItemGuid);
    const claimed = await call('POST', '/library/claim', { token: user, json: { ProductBuilderUrl: builderUrl } });
    check(
      JSON.stringify(guidsOf(claimed)) === JSON.stringify(itemGuids),
      `unexpected claim ${JSON.stringify(claimed)}`,
    );
    const listed = guidsOf(await call('GET', `/library?limit=${Math.max(itemGuids.length, 1)}`, { token: user }));
    check(
      itemGuids.every((guid) => listed.includes(guid)),
      `GET /library answered ${JSON.stringify(listed)}`,
    );
    for (const guid of itemGuids) {
      const deleted = await call('DELETE', `/library/${guid}`, { token: user });
      check(deleted.ItemGuid === guid && deleted.Deleted === true, `unexpected delete ${JSON.stringify(deleted)}`);
      await call('GET', `/library/${guid}`, { apiKey: keys.library, expect: 404 });
    }
    const after = guidsOf(await call('GET', '/library?limit=200', { token: user }));
    check(!itemGuids.some((guid) => after.includes(guid)), 'a deleted item is still listed');
  });

  return result;
}
