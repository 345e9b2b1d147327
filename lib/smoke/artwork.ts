/**
 * The smoke steps of an order's artwork: a photo of the test user's named by a project version, its order's
 * artwork read by the lab (the download's MD5 is FileMd5), and the user's erasure of the held photo (202,
 * hidden at once). The order is then cancelled, which ends the hold, so the photo is erased by itself and the
 * run leaves only its order behind.
 */
import { randomUUID } from 'node:crypto';
import { check, md5, pushSmokePng, SMOKE_PNG, type SmokeSession } from './session.ts';

export async function artworkSteps({ call, step, send, user, keys }: SmokeSession): Promise<void> {
  let itemGuid = '';
  let orderGuid = '';

  await step('artwork order (project ItemGuids, checkout, completion)', async () => {
    const pushed = await pushSmokePng(call, keys.library, 'artwork.png');
    itemGuid = pushed.LibraryItem.ItemGuid;
    await call('POST', '/library/claim', { token: user, json: { ProductBuilderUrl: pushed.ProductBuilderUrl } });
    const projectGuid = randomUUID().replaceAll('-', '');
    const project = await call('PUT', `/project/${projectGuid}`, {
      apiKey: keys.catalog,
      json: { UnitPrice: 30, Version: 1, Name: 'Smoke test book', ItemGuids: [itemGuid] },
    });
    check(
      JSON.stringify(project.ItemGuids) === JSON.stringify([itemGuid]),
      `unexpected project ${JSON.stringify(project)}`,
    );
    const basket = await call('POST', '/basket', { token: user });
    await call('POST', `/basket/${basket.Guid}/line`, { token: user, json: { ProjectGuid: projectGuid, Quantity: 1 } });
    const checkout = await call('POST', `/basket/${basket.Guid}/checkout`, { token: user });
    const checkoutId = new URL(checkout.CheckoutUrl).pathname.split('/').filter(Boolean).at(-1) ?? '';
    const completed = await call('POST', `/checkout/${checkoutId}/complete`, {
      apiKey: keys.site,
      json: { PaymentReference: `smoke-${randomUUID()}` },
    });
    orderGuid = completed.Order.OrderGuid;
  });

  await step("the lab's artwork read (fulfilment key)", async () => {
    const artwork = await call('GET', `/order/${orderGuid}/artwork`, { apiKey: keys.fulfilment });
    const item = artwork.Lines[0]?.Items[0];
    check(
      artwork.Lines.length === 1 && artwork.Lines[0].Items.length === 1 && item.ItemGuid === itemGuid,
      `unexpected artwork ${JSON.stringify(artwork)}`,
    );
    const download = await send(item.DownloadUrl);
    const bytes = new Uint8Array(await download.arrayBuffer());
    check(
      download.status === 200 && md5(bytes) === item.FileMd5 && item.FileMd5 === md5(SMOKE_PNG),
      `the artwork download answered ${download.status} with other bytes`,
    );
  });

  await step('erasure waits for the order (202), then the cancelled order lets it go', async () => {
    const scheduled = await call('DELETE', `/library/${itemGuid}`, { token: user, expect: 202 });
    check(
      scheduled.ItemGuid === itemGuid && /^\/Date\(\d+\)\/$/.test(scheduled.ErasureScheduledDateUtc),
      `unexpected erasure ${JSON.stringify(scheduled)}`,
    );
    await call('GET', `/library/${itemGuid}`, { apiKey: keys.library, expect: 404 });
    const still = await call('GET', `/order/${orderGuid}/artwork`, { apiKey: keys.fulfilment });
    check(still.Lines[0]?.Items[0]?.ItemGuid === itemGuid, 'the lab lost a held item');
    const cancelled = await call('PUT', `/order/${orderGuid}/status`, {
      apiKey: keys.fulfilment,
      json: { Status: 'Cancelled' },
    });
    check(cancelled.Order.Status === 'Cancelled', `unexpected status change ${JSON.stringify(cancelled)}`);
  });
}
