/**
 * Pull over the real local stack from a loopback image server. The service runs with
 * PULL_ALLOW_LOOPBACK=true so successful pulls can reach that server; the loopback refusals switch it off
 * for their requests (config is read per request). Internal addresses beyond loopback appear only as
 * answers of a stubbed resolver passed to the pull use case: no packet leaves loopback.
 */
import { createHash } from 'node:crypto';
import dns from 'node:dns';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { pngOfSize, tinyPng } from '../support/multipart.ts';
import {
  libraryObjectKeyOf,
  snapshotStore,
  storeDiff,
  listObjectKeys,
  type StoreSnapshot,
} from '../support/store-snapshot.ts';
import { jpeg as jpegImage } from '../support/images.ts';
import type { PullPolicy, ResolvedAddress } from '../../functions/library/pull-target.ts';
import type { DomainError } from '../../functions/shared/errors.ts';
import { statusOf } from '../../functions/http/errors.ts';

const MAX_BYTES = 256 * 1024;
const png = tinyPng();
const largerPng = pngOfSize(40_000);
/** A real 1x1 JPEG, served with a misleading content type. */
const jpeg = jpegImage('pulled');

type Route = (request: IncomingMessage, response: ServerResponse) => void;
const send =
  (body: Buffer, type: string): Route =>
  (_request, response) =>
    response.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length }).end(body);
const redirect =
  (status: number, location: string): Route =>
  (_request, response) =>
    response.writeHead(status, { Location: location }).end();
const routes: Record<string, Route> = {
  '/photo.png': send(png, 'image/png'),
  '/larger.png': send(largerPng, 'image/png'),
  '/photo.jpg': send(jpeg, 'text/plain'),
  '/notes.txt': send(Buffer.from('just text, not an image'), 'image/png'),
  '/moved.png': redirect(302, '/photo.png'),
  '/silent.png': () => undefined,
  '/to-intranet': redirect(302, 'http://intranet.example.com/secret.png'),
  '/to-metadata': redirect(301, 'http://169.254.169.254/latest/meta-data/'),
  '/huge.png': (_request, response) => {
    response.writeHead(200, { 'Content-Type': 'image/png' });
    response.write(largerPng.subarray(0, 100));
    const filler = Buffer.alloc(64 * 1024);
    let sent = 0;
    const more = () => {
      while (sent <= MAX_BYTES) {
        sent += filler.length;
        if (!response.write(filler)) return void response.once('drain', more);
      }
      response.end();
    };
    more();
  },
};

let service: TestService;
let imageServer: Server;
let images: string;
const served: string[] = [];
let libraryKey: string;
let pullImages: (owner: { apiKeyId: string }, urls: readonly string[], policy?: PullPolicy) => Promise<unknown>;
let pullPolicy: (overrides?: Partial<PullPolicy>) => PullPolicy;
/** The refusal of a host name that does not resolve to public addresses only (pull-target.ts). */
let NOT_PUBLIC = '';
let LOOPBACK_HINT = '';

beforeAll(async () => {
  imageServer = createServer((request, response) => {
    served.push(request.url ?? '');
    const route = routes[request.url ?? ''];
    if (route) route(request, response);
    else response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not here');
  });
  await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
  images = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`;
  service = await startTestService({ env: { PULL_ALLOW_LOOPBACK: 'true', PULL_MAX_BYTES: String(MAX_BYTES) } });
  libraryKey = await service.apiKey('pull-test', 'library');
  // Imported after the service set the environment: the SDK clients read their endpoints at load.
  ({ pullImages } = await import('../../functions/services/pull-service.ts'));
  ({ pullPolicy, NOT_PUBLIC, LOOPBACK_HINT } = await import('../../functions/library/pull-target.ts'));
});
afterAll(async () => {
  imageServer?.closeAllConnections();
  imageServer?.close();
  await service?.close();
});

let before: StoreSnapshot;
beforeEach(async () => {
  served.length = 0;
  before = await snapshotStore(service);
});
afterEach(() => vi.restoreAllMocks());

const pull = (url: string) => service.request('POST', '/library/pull', { apiKey: libraryKey, json: { Url: url } });
const pullMany = (urls: string[]) =>
  service.request('POST', '/library/multi/pull', { apiKey: libraryKey, json: { Urls: urls } });
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex').toUpperCase();
const itemOf = (bytes: Buffer, type: string) => ({
  ItemGuid: expect.stringMatching(/^[0-9a-f]{32}$/),
  FileMimeType: type,
  FileSize: bytes.length,
  FileMd5: md5(bytes),
});
const BUILDER_URL = /^http:\/\/127\.0\.0\.1:3001\/builder\/[A-Za-z0-9_-]{20,}$/;

async function expectNothingStored(): Promise<void> {
  expect(storeDiff(before, await snapshotStore(service))).toEqual([]);
}

describe('pull over HTTP from a loopback image server (PULL_ALLOW_LOOPBACK=true)', () => {
  it('stores a PNG with its size, MD5 and sniffed type', async () => {
    const response = await pull(`${images}/photo.png`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      LibraryItem: itemOf(png, 'image/png'),
      ProductBuilderUrl: expect.stringMatching(BUILDER_URL),
    });
    const objects = await listObjectKeys(service.storage);
    expect(objects.get((await libraryObjectKeyOf(service.storage, response.body.LibraryItem.ItemGuid))!)).toMatch(
      new RegExp(`^${png.length}:`),
    );
  });

  it('sniffs the type from the bytes, not the Content-Type, and follows a redirect', async () => {
    expect((await pull(`${images}/photo.jpg`)).body.LibraryItem).toEqual(itemOf(jpeg, 'image/jpeg'));
    expect((await pull(`${images}/moved.png`)).body.LibraryItem).toEqual(itemOf(png, 'image/png'));
    expect(served).toEqual(['/photo.jpg', '/moved.png', '/photo.png']);
  });

  it('answers 415 for bytes that are no image and stores nothing', async () => {
    const response = await pull(`${images}/notes.txt`);
    expect(response.status).toBe(415);
    expect(response.body.Error.Code).toBe('UnsupportedMediaType');
    await expectNothingStored();
  });

  it('answers 422 PullFailed naming the URL and the status for a missing image', async () => {
    const url = `${images}/missing.png`;
    const response = await pull(url);
    expect(response.status).toBe(422);
    expect(response.body.Error.Code).toBe('PullFailed');
    expect(response.body.Error.Message).toContain(url);
    expect(response.body.Error.Message).toContain('answered 404');
    await expectNothingStored();
  });

  it('answers 413 for an image over PULL_MAX_BYTES and keeps no partial object', async () => {
    const response = await pull(`${images}/huge.png`);
    expect(response.status).toBe(413);
    expect(response.body.Error.Message).toContain(`larger than ${MAX_BYTES} bytes`);
    await expectNothingStored();
  });

  it('refuses what is not an http(s) URL with 422, and validates the body', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/a.png', 'no url']) {
      const response = await pull(url);
      expect(response.status).toBe(422);
      expect(response.body.Error.Code).toBe('PullRefused');
    }
    expect((await service.request('POST', '/library/pull', { apiKey: libraryKey, json: { Urls: ['x'] } })).status).toBe(
      400,
    );
    await expectNothingStored();
  });

  it('takes an API key, not a bearer token', async () => {
    const response = await service.request('POST', '/library/pull', {
      token: await service.token('alice'),
      json: { Url: `${images}/photo.png` },
    });
    expect([401, 403]).toContain(response.status);
    expect(served).toEqual([]);
  });
});

describe('loopback refused when PULL_ALLOW_LOOPBACK is off', () => {
  beforeEach(() => {
    process.env.PULL_ALLOW_LOOPBACK = 'false';
  });
  afterEach(() => {
    process.env.PULL_ALLOW_LOOPBACK = 'true';
  });

  it.each([
    'http://127.0.0.1:PORT/photo.png',
    'http://localhost:PORT/photo.png',
    'http://[::1]:PORT/photo.png',
    'http://127.0.0.1:PORT/moved.png',
  ])('refuses %s with 422 PullRefused and stores nothing', async (template) => {
    const url = template.replace('PORT', new URL(images).port);
    const response = await pull(url);
    expect(response.status).toBe(422);
    expect(response.body.Error).toMatchObject({
      Code: 'PullRefused',
      Failures: [{ Index: 0, Code: 'PullRefused', Reason: expect.stringContaining(url) }],
    });
    expect(response.body.Error.Message).toContain(url);
    // An address literal's refusal names its kind; a name's reveals nothing of what it resolved to, beyond
    // what `localhost` means by definition. Both name the switch that would have let the pull through.
    if (url.includes('localhost')) {
      expect(response.body.Error.Message).toBe(
        `Pull of ${url} refused: the host localhost ${NOT_PUBLIC}${LOOPBACK_HINT}.`,
      );
      expect(response.text).not.toMatch(/127\.0\.0\.1|::1/);
    } else
      expect(response.body.Error.Message).toMatch(/a loopback address .*; PULL_ALLOW_LOOPBACK=true allows loopback/);
    expect(served).toEqual([]);
    await expectNothingStored();
  });
});

describe('multi pull', () => {
  it('answers one item per URL in request order under one builder URL', async () => {
    const urls = [
      `${images}/larger.png`,
      `${images}/photo.jpg`,
      `${images}/photo.png`,
      `${images}/moved.png`,
      `${images}/larger.png`,
    ];
    const response = await pullMany(urls);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      LibraryItems: [
        itemOf(largerPng, 'image/png'),
        itemOf(jpeg, 'image/jpeg'),
        itemOf(png, 'image/png'),
        itemOf(png, 'image/png'),
        itemOf(largerPng, 'image/png'),
      ],
      ProductBuilderUrl: expect.stringMatching(BUILDER_URL),
    });
    expect(new Set(response.body.LibraryItems.map((item: { ItemGuid: string }) => item.ItemGuid)).size).toBe(5);
  });

  it('stores nothing when one URL fails, and lists each failed index with its reason', async () => {
    const urls = [
      `${images}/photo.png`,
      `${images}/missing.png`,
      `${images}/larger.png`,
      `${images}/notes.txt`,
      `${images}/photo.jpg`,
    ];
    const response = await pullMany(urls);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(response.body.Error.Failures).toEqual([
      { Index: 1, Code: 'PullFailed', Reason: expect.stringContaining(`${images}/missing.png`) },
      { Index: 3, Code: 'UnsupportedMediaType', Reason: expect.any(String) },
    ]);
    await expectNothingStored();
  });

  it('ends every fetch within the request budget (PULL_REQUEST_TIMEOUT_MS) with a 422, storing nothing', async () => {
    process.env.PULL_REQUEST_TIMEOUT_MS = '300';
    try {
      const response = await pullMany([`${images}/silent.png`, `${images}/photo.png`, `${images}/silent.png`]);
      expect(response.status).toBe(422);
      expect(response.body.Error.Code).toBe('PullFailed');
      expect(response.body.Error.Failures.map((failure: { Index: number }) => failure.Index)).toEqual([0, 2]);
      // A server that never answers reads like one that cannot be reached (no port-scanning oracle).
      expect(response.body.Error.Failures[0].Reason).toContain('could not be reached');
    } finally {
      delete process.env.PULL_REQUEST_TIMEOUT_MS;
    }
    await expectNothingStored();
  });

  it(`refuses more than 20 URLs before fetching any`, async () => {
    const response = await pullMany(Array.from({ length: 21 }, () => `${images}/photo.png`));
    expect(response.status).toBe(400);
    expect(response.body.Error.Code).toBe('TooManyItems');
    expect(served).toEqual([]);
    await expectNothingStored();
  });
});

describe('internal addresses through a stubbed resolver (pull use case on the real local storage)', () => {
  const owner = { apiKeyId: 'pull-test-stubbed' };

  /** Names resolve only from the table; the system resolver must not be asked (it would throw). */
  function stubbedPolicy(table: Record<string, string[]>, allowLoopback = false): PullPolicy {
    vi.spyOn(dns, 'lookup').mockImplementation(() => {
      throw new Error('system DNS lookup attempted');
    });
    const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
      const addresses = table[hostname];
      if (!addresses) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    return pullPolicy({ allowLoopback, resolve });
  }

  async function refusedPull(urls: string[], policy: PullPolicy): Promise<DomainError> {
    const error = (await pullImages(owner, urls, policy).then(
      () => undefined,
      (caught: unknown) => caught,
    )) as DomainError;
    expect(statusOf(error)).toBe(422);
    return error;
  }

  it.each([
    ['169.254.169.254', 'link-local'],
    ['10.20.30.40', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.0.1', 'private'],
    ['fc00::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
  ])('refuses a host resolving to %s (%s) without revealing it, and stores nothing', async (address, what) => {
    const url = 'http://images.example.com/photo.png';
    const error = await refusedPull([url], stubbedPolicy({ 'images.example.com': [address] }));
    expect(error.code).toBe('PullRefused');
    expect(error.message).toBe(`Pull of ${url} refused: the host images.example.com ${NOT_PUBLIC}.`);
    expect(error.message).not.toContain(address);
    expect(error.message).not.toContain(what);
    await expectNothingStored();
  });

  it('refuses a redirect from the loopback server into a private address and stores nothing', async () => {
    const url = `${images}/to-intranet`;
    const error = await refusedPull([url], stubbedPolicy({ 'intranet.example.com': ['10.1.1.1'] }, true));
    expect(error.code).toBe('PullRefused');
    expect(error.message).toContain(url);
    expect(error.message).toContain(`the host intranet.example.com ${NOT_PUBLIC}`);
    expect(error.message).not.toContain('10.1.1.1');
    expect(served).toEqual(['/to-intranet']);
    await expectNothingStored();
  });

  it('refuses a redirect to the metadata address inside a multi pull, keeping none of the others', async () => {
    const error = await refusedPull(
      [`${images}/photo.png`, `${images}/to-metadata`, `${images}/larger.png`],
      stubbedPolicy({}, true),
    );
    expect(error.details?.Failures).toEqual([
      { Index: 1, Code: 'PullRefused', Reason: expect.stringContaining('169.254.169.254 is a link-local address') },
    ]);
    await expectNothingStored();
  });
});
