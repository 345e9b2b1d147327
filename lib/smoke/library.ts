/**
 * The smoke steps of the image library: push, pull (when a public image URL is given), a presigned
 * large-file upload, builder URLs, reading an item and its download, the builder site's resolution, and a
 * user's claim, listing and deletion (which leaves nothing of the run behind).
 */
import { check, md5, pushSmokePng, SMOKE_PNG, type SmokeSession } from './session.ts';

const hyphenate = (guid: string) =>
  `${guid.slice(0, 8)}-${guid.slice(8, 12)}-${guid.slice(12, 16)}-${guid.slice(16, 20)}-${guid.slice(20)}`;

export async function librarySteps(session: SmokeSession, imageUrl: string | undefined): Promise<void> {
  const { call, step, send, user, keys, log } = session;
  const itemGuids: string[] = [];
  let builderToken = '';
  let builderUrl = '';

  await step('push', async () => {
    const pushed = await pushSmokePng(call, keys.library, 'smoke.png');
    const item = pushed.LibraryItem;
    check(
      item.FileMimeType === 'image/png' && item.FileSize === SMOKE_PNG.length && item.FileMd5 === md5(SMOKE_PNG),
      `unexpected item ${JSON.stringify(item)}`,
    );
    check(/^https?:\/\//.test(pushed.ProductBuilderUrl), 'no absolute ProductBuilderUrl');
    itemGuids.push(item.ItemGuid);
  });

  if (imageUrl) {
    await step('pull', async () => {
      const pulled = await call('POST', '/library/pull', { apiKey: keys.library, json: { Url: imageUrl } });
      const item = pulled.LibraryItem;
      check(
        item.FileMimeType.startsWith('image/') && item.FileSize > 0 && /^[0-9A-F]{32}$/.test(item.FileMd5),
        `unexpected item ${JSON.stringify(item)}`,
      );
      itemGuids.push(item.ItemGuid);
    });
  } else {
    session.skipped.push('pull');
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
}
