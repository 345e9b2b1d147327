/**
 * The lab's DownloadLinks over HTTP (issue 43, item 4): each item of `GET /order/{orderGuid}/artwork` carries
 * a link that needs no credential and answers 307 to a fresh presigned GET of the original (its bytes' MD5 is
 * FileMd5); a changed character is 403 InvalidLink; a link past its expiry (issued with the clock moved back)
 * is 410 LinkExpired; a cancelled order's links are 410 OrderCancelled; an item erased while the order holds
 * it stays reachable until the hold ends (ARTWORK_HOLD_DAYS=0: at the completion), then is 410 ArtworkErased.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startArtworkParties, type ArtworkParties } from '../support/artwork.ts';
import { issueLinks } from '../../functions/services/artwork-links.ts';

let parties: ArtworkParties;

beforeAll(async () => {
  parties = await startArtworkParties('links', { ARTWORK_HOLD_DAYS: '0' });
}, 60_000);
afterAll(() => parties?.service.close());

const DAY_MS = 24 * 60 * 60 * 1000;
const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex').toUpperCase();

/** Follows a link as the lab's downloader would: no credential, no redirect followed yet. */
const follow = (link: string) => fetch(link, { redirect: 'manual' });

/** The order's artwork items, by item guid, as the lab reads them. */
async function artworkOf(orderGuid: string): Promise<Map<string, any>> {
  const read = await parties.service.request('GET', `/order/${orderGuid}/artwork`, { apiKey: parties.fulfilmentKey });
  expect(read.status, read.text).toBe(200);
  return new Map(read.body.Lines.flatMap((line: any) => line.Items).map((item: any) => [item.ItemGuid, item]));
}

/** The bytes a link leads to: its 307, then the presigned GET. */
async function bytesBehind(link: string): Promise<Uint8Array> {
  const answer = await follow(link);
  expect(answer.status, await answer.clone().text()).toBe(307);
  expect(answer.headers.get('cache-control')).toBe('no-store');
  const original = await fetch(answer.headers.get('location') as string);
  expect(original.status).toBe(200);
  return new Uint8Array(await original.arrayBuffer());
}

async function refusal(link: string, status: number): Promise<string> {
  const answer = await follow(link);
  expect(answer.status).toBe(status);
  return ((await answer.json()) as { Error: { Code: string } }).Error.Code;
}

const setStatus = async (orderGuid: string, ...statuses: string[]) => {
  for (const Status of statuses) {
    const changed = await parties.service.request('PUT', `/order/${orderGuid}/status`, {
      apiKey: parties.fulfilmentKey,
      json: { Status },
    });
    expect(changed.status, changed.text).toBe(200);
  }
};

describe('artwork DownloadLinks', { timeout: 90_000 }, () => {
  it('lead, with no credential, to the original: its MD5 is FileMd5, every time', async () => {
    const { itemGuids } = await parties.photos(2, { claim: true });
    const orderGuid = await parties.paidOrder([await parties.projectWith(itemGuids)]);
    const items = await artworkOf(orderGuid);
    for (const itemGuid of itemGuids) {
      const item = items.get(itemGuid);
      expect(item.DownloadLink).toMatch(
        new RegExp(
          `^${parties.service.url}/order/${orderGuid}/artwork/${itemGuid}\\?line=1&expires=\\d+&signature=[\\w-]{43}$`,
        ),
      );
      expect(md5(await bytesBehind(item.DownloadLink))).toBe(item.FileMd5);
      expect(md5(await bytesBehind(item.DownloadLink))).toBe(item.FileMd5);
    }
    // Valid ARTWORK_LINK_DAYS (14) from the read.
    const expires = Number(new URL(items.get(itemGuids[0] as string).DownloadLink).searchParams.get('expires')) * 1000;
    expect(Math.abs(expires - (Date.now() + 14 * DAY_MS))).toBeLessThan(60_000);
  });

  it('is 403 InvalidLink when any character is changed', async () => {
    const { itemGuids } = await parties.photos(2, { claim: true });
    const orderGuid = await parties.paidOrder([await parties.projectWith(itemGuids)]);
    const [first, second] = itemGuids as [string, string];
    const link = (await artworkOf(orderGuid)).get(first).DownloadLink as string;
    const url = new URL(link);
    const signature = url.searchParams.get('signature') as string;
    const flip = (text: string, at: number) =>
      `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
    const changed = [
      link.replace(`signature=${signature}`, `signature=${flip(signature, 10)}`),
      link.replace(first, second),
      link.replace(/expires=(\d+)/, (_, expires: string) => `expires=${Number(expires) + 1}`),
      link.replace('line=1', 'line=2'),
      link.replace(/&signature=.*$/, ''),
    ];
    for (const tampered of changed) expect(await refusal(tampered, 403), tampered).toBe('InvalidLink');
    expect(md5(await bytesBehind(link))).toBe((await artworkOf(orderGuid)).get(first).FileMd5);
  });

  it('is 410 LinkExpired once its days have passed (a link issued 15 days ago)', async () => {
    const { itemGuids } = await parties.photos(1, { claim: true });
    const orderGuid = await parties.paidOrder([await parties.projectWith(itemGuids)]);
    const items = [{ line: 1, itemGuid: itemGuids[0] as string }];
    const [expired] = await issueLinks(parties.service.url, orderGuid, items, Date.now() - 15 * DAY_MS);
    expect(await refusal(expired as string, 410)).toBe('LinkExpired');
    // Issued 13 days ago, under another day's key: still good.
    const [older] = await issueLinks(parties.service.url, orderGuid, items, Date.now() - 13 * DAY_MS);
    expect((await follow(older as string)).status).toBe(307);
  });

  it('is 410 OrderCancelled once the order is cancelled, for each of its links', async () => {
    const { itemGuids } = await parties.photos(2, { claim: true });
    const orderGuid = await parties.paidOrder([await parties.projectWith(itemGuids)]);
    const links = [...(await artworkOf(orderGuid)).values()].map((item) => item.DownloadLink as string);
    expect((await follow(links[0] as string)).status).toBe(307);
    const cancelled = await parties.service.request('POST', `/order/${orderGuid}/cancel`, { token: parties.customer });
    expect(cancelled.status, cancelled.text).toBe(200);
    for (const link of links) expect(await refusal(link, 410)).toBe('OrderCancelled');
  });

  it('reaches an item erased while held until the hold ends, then is 410 ArtworkErased', async () => {
    const { itemGuids } = await parties.photos(2, { claim: true });
    const [held, kept] = itemGuids as [string, string];
    const orderGuid = await parties.paidOrder([await parties.projectWith(itemGuids)]);
    const items = await artworkOf(orderGuid);
    const erased = await parties.service.request('DELETE', `/library/${held}`, { token: parties.customer });
    expect(erased.status, erased.text).toBe(202);
    expect(md5(await bytesBehind(items.get(held).DownloadLink))).toBe(items.get(held).FileMd5);
    // ARTWORK_HOLD_DAYS=0: the completion ends the hold.
    await setStatus(orderGuid, 'Processing', 'Shipped', 'Completed');
    expect(await refusal(items.get(held).DownloadLink, 410)).toBe('ArtworkErased');
    // The item nobody erased is still the customer's, and the lab's for its link's days.
    expect(md5(await bytesBehind(items.get(kept).DownloadLink))).toBe(items.get(kept).FileMd5);
  });
});
