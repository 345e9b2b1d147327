/**
 * The read side of the library over HTTP against the local stack: GET /library/{itemGuid} (metadata, a
 * presigned download URL, print quality) and GET /builder/{token} (the builder site's resolution), with
 * metadata recorded by push, multi push, pull and the large-file completion.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessIt } from '../support/bundles.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { jpeg, png } from '../support/images.ts';
import { pushFiles } from '../support/library-push.ts';

let service: TestService;
let apiKey: string;
let otherKey: string;
let siteKey: string;
let images: Server;
let imageBase: string;

const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex').toUpperCase();
const hyphenate = (guid: string) =>
  `${guid.slice(0, 8)}-${guid.slice(8, 12)}-${guid.slice(12, 16)}-${guid.slice(16, 20)}-${guid.slice(20)}`;
const tokenOf = (productBuilderUrl: string) => new URL(productBuilderUrl).pathname.split('/').pop() as string;

async function push(files: Buffer[]): Promise<{ itemGuids: string[]; token: string }> {
  const { itemGuids, productBuilderUrl } = await pushFiles(
    service.url,
    apiKey,
    files.map((bytes) => ({ bytes })),
  );
  return { itemGuids, token: tokenOf(productBuilderUrl) };
}

const readItem = (itemGuid: string, query = '', key = apiKey) =>
  service.request('GET', `/library/${itemGuid}${query}`, { apiKey: key });

beforeAll(async () => {
  images = createServer((request, response) => {
    const width = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('w') ?? 1);
    response.writeHead(200, { 'Content-Type': 'image/png' }).end(png(width, 7));
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  service = await startTestService({ env: { PULL_ALLOW_LOOPBACK: 'true', DOWNLOAD_URL_SECONDS: '600' } });
  apiKey = await service.apiKey('read-test', 'library');
  otherKey = await service.apiKey('read-test-other', 'library');
  siteKey = await service.apiKey('read-test-builder-site', 'site');
}, 60_000);

afterAll(async () => {
  await service?.close();
  await new Promise((resolve) => images?.close(resolve));
});

describe('GET /library/{itemGuid}', () => {
  it('answers the metadata and a download URL that serves the exact bytes with the sniffed type', async () => {
    const image = png(40, 30, 3);
    const { itemGuids } = await push([image]);
    const before = Date.now();
    const { status, body } = await readItem(hyphenate(itemGuids[0]!));
    expect(status).toBe(200);
    const item = body.LibraryItem;
    expect(Object.keys(item).sort()).toEqual(
      [
        'CreatedDateUtc',
        'DownloadExpiresDateUtc',
        'DownloadUrl',
        'DpiX',
        'DpiY',
        'FileMd5',
        'FileMimeType',
        'FileSize',
        'Height',
        'ItemGuid',
        'Orientation',
        'Renditions',
        'Width',
      ].sort(),
    );
    expect(item).toMatchObject({
      ItemGuid: itemGuids[0],
      FileMimeType: 'image/png',
      FileSize: image.length,
      FileMd5: md5(image),
      Width: 40,
      Height: 30,
      Orientation: 1,
      DpiX: null,
      DpiY: null,
    });
    const expires = Number(/^\/Date\((\d+)\)\/$/.exec(item.DownloadExpiresDateUtc)?.[1]);
    expect(expires).toBeGreaterThanOrEqual(before + 600_000);
    expect(expires).toBeLessThan(Date.now() + 600_000 + 1000);
    expect(item.DownloadUrl).toContain('X-Amz-Expires=600');

    const download = await fetch(item.DownloadUrl);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/png');
    expect(md5(new Uint8Array(await download.arrayBuffer()))).toBe(md5(image));
  });

  it('answers 404 for an item of another API key, exactly like a missing one, and 400 for a malformed guid', async () => {
    const { itemGuids } = await push([jpeg('another key')]);
    const foreign = await readItem(itemGuids[0]!, '', otherKey);
    const missing = await readItem('0123456789abcdef0123456789abcdef', '', otherKey);
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.body.Error.Code).toBe('LibraryItemNotFound');
    expect(foreign.body.Error.Message.replace(itemGuids[0]!, 'GUID')).toBe(
      missing.body.Error.Message.replace('0123456789abcdef0123456789abcdef', 'GUID'),
    );
    const malformed = await readItem('not-a-guid');
    expect(malformed.status).toBe(400);
    expect(malformed.body.Error.Code).toBe('ValidationFailed');
  });

  it('rates print quality at three sizes (the print turned to the image), and refuses bad sizes with 400', async () => {
    // 1800 x 1200 px: 152.4 x 101.6 mm is exactly 300 ppi; twice that is 150; bigger is Poor.
    const { itemGuids } = await push([png(1800, 1200)]);
    const quality = async (query: string) => (await readItem(itemGuids[0]!, query)).body.LibraryItem.PrintQuality;
    expect(await quality('?printWidthMm=101.6&printHeightMm=152.4')).toEqual({ EffectivePpi: 300, Rating: 'Good' });
    expect(await quality('?printWidthMm=304.8&printHeightMm=203.2')).toEqual({ EffectivePpi: 150, Rating: 'Fair' });
    expect(await quality('?printWidthMm=400&printHeightMm=400')).toEqual({ EffectivePpi: 76, Rating: 'Poor' });
    expect(await quality('')).toBeUndefined();
    for (const query of [
      '?printWidthMm=100',
      '?printWidthMm=0&printHeightMm=100',
      '?printWidthMm=-5&printHeightMm=100',
      '?printWidthMm=ten&printHeightMm=100',
      '?printWidthMm=20000&printHeightMm=100',
    ]) {
      const refused = await readItem(itemGuids[0]!, query);
      expect(refused.status, query).toBe(400);
      expect(refused.body.Error.Code, query).toBe('ValidationFailed');
    }
  });
});

describe('metadata recorded by every way in', () => {
  it('multi push, pull and multi pull record each image size', async () => {
    const { itemGuids: pushed } = await push([png(5, 6), jpeg('multi')]);
    const pulled = await service.request('POST', '/library/pull', { apiKey, json: { Url: `${imageBase}/a.png?w=11` } });
    const pulledMany = await service.request('POST', '/library/multi/pull', {
      apiKey,
      json: { Urls: [`${imageBase}/b.png?w=12`, `${imageBase}/c.png?w=13`] },
    });
    expect(pulled.status, pulled.text).toBe(200);
    expect(pulledMany.status, pulledMany.text).toBe(200);
    const guids = [
      ...pushed,
      pulled.body.LibraryItem.ItemGuid,
      ...pulledMany.body.LibraryItems.map((item: { ItemGuid: string }) => item.ItemGuid),
    ];
    const sizes = await Promise.all(
      guids.map(async (guid) => (({ Width, Height }) => [Width, Height])((await readItem(guid)).body.LibraryItem)),
    );
    expect(sizes).toEqual([
      [5, 6],
      [1, 1],
      [11, 7],
      [12, 7],
      [13, 7],
    ]);
  });

  it('the large-file completion records the size read while streaming the object for its MD5', async () => {
    const ticket = (await service.request('POST', '/library/upload', { apiKey })).body;
    const form = new FormData();
    for (const [name, value] of Object.entries(ticket.Upload.Fields as Record<string, string>))
      form.append(name, value);
    form.append('file', new Blob([png(64, 48)], { type: 'text/plain' }), 'big.png');
    expect((await fetch(ticket.Upload.Url, { method: 'POST', body: form })).status).toBeLessThan(300);
    expect((await service.request('POST', `/library/upload/${ticket.ItemGuid}/complete`, { apiKey })).status).toBe(200);
    const item = (await readItem(ticket.ItemGuid)).body.LibraryItem;
    expect(item).toMatchObject({ Width: 64, Height: 48, FileMimeType: 'image/png' });
    // The browser declared text/plain; the download answers the sniffed type.
    expect((await fetch(item.DownloadUrl)).headers.get('content-type')).toBe('image/png');
  });
});

describe('GET /builder/{token}', () => {
  it('answers the items in minting order, for a push and for POST /library/builder', async () => {
    const { itemGuids, token } = await push([png(2, 2, 1), png(3, 3, 2), png(4, 4, 3)]);
    const { status, body } = await service.request('GET', `/builder/${token}`, { apiKey: siteKey });
    expect(status).toBe(200);
    expect(body.Builder.Token).toBe(token);
    expect(body.Builder.CreatedDateUtc).toMatch(/^\/Date\(\d+\)\/$/);
    expect(body.Builder.Items.map((item: { ItemGuid: string }) => item.ItemGuid)).toEqual(itemGuids);
    expect(body.Builder.Items.map((item: { Width: number }) => item.Width)).toEqual([2, 3, 4]);

    const reversed = [...itemGuids].reverse();
    const minted = await service.request('POST', '/library/builder', { apiKey, json: { Guids: reversed } });
    const again = await service.request('GET', `/builder/${tokenOf(minted.body.ProductBuilderUrl)}`, {
      apiKey: siteKey,
    });
    expect(again.body.Builder.Items.map((item: { ItemGuid: string }) => item.ItemGuid)).toEqual(reversed);
    const download = await fetch(again.body.Builder.Items[0].DownloadUrl);
    expect(md5(new Uint8Array(await download.arrayBuffer()))).toBe(md5(png(4, 4, 3)));
  });

  inProcessIt('leaves out an item deleted since, with one GetItem and one BatchGetItem', async () => {
    const { itemGuids, token } = await push([png(2, 2, 4), png(2, 2, 5), png(2, 2, 6)]);
    // Their renditions made first: the function that makes them shares the client counted below.
    await service.drainEvents();
    const { dynamo, dynamoDbClient } = await import('../../functions/shared/clients/dynamodb.ts');
    const { libraryItemKey } = await import('../../functions/store/keys.ts');
    const { config } = await import('../../functions/shared/config.ts');
    await dynamo.send(new DeleteCommand({ TableName: config.tableName, Key: libraryItemKey(itemGuids[1]!) }));
    const commands: string[] = [];
    const name = 'count-builder-reads';
    // The builder function's own reads, by the partition they touch (the authorizer and any function fed in
    // the background meanwhile share the client; each call runs as its function, source-invocations.ts).
    const { runningFunction } = await import('../../lib/local/source-invocations.ts');
    const partitionOf = (input: any): string =>
      String(input.Key?.PK ?? (Object.values(input.RequestItems ?? {})[0] as any)?.Keys?.[0]?.PK ?? '').split(
        '#',
      )[0] as string;
    dynamoDbClient.middlewareStack.add(
      (next, context) => (args) => {
        if (runningFunction() === 'get-builder') commands.push(`${context.commandName} ${partitionOf(args.input)}`);
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      const { body } = await service.request('GET', `/builder/${token}`, { apiKey: siteKey });
      expect(body.Builder.Items.map((item: { ItemGuid: string }) => item.ItemGuid)).toEqual([
        itemGuids[0],
        itemGuids[2],
      ]);
    } finally {
      dynamoDbClient.middlewareStack.remove(name);
    }
    expect(commands).toEqual(['GetItemCommand BUILDER', 'BatchGetItemCommand LIBITEM']);
  });

  it('answers 404 BuilderNotFound for an unknown token, 400 for a malformed one', async () => {
    const unknown = await service.request('GET', '/builder/0123456789abcdef0123456789abcdef', { apiKey: siteKey });
    expect(unknown.status).toBe(404);
    expect(unknown.body.Error.Code).toBe('BuilderNotFound');
    expect((await service.request('GET', '/builder/not-a-token', { apiKey: siteKey })).status).toBe(400);
  });
});
