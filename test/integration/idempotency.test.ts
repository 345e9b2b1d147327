/**
 * Idempotency-Key over HTTP: a retried create answers the first result and creates nothing new, keys are
 * scoped to the caller, and a key reused for a different request is refused.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { multipartBody, tinyPng } from '../support/multipart.ts';

let service: TestService;
let canvas: string;
let photoBook: string;
/** A loopback image server for pull; counts fetches so a replay is seen not to fetch again. */
let imageServer: Server;
let imageUrl: string;
let imageFetches = 0;

beforeAll(async () => {
  imageServer = createServer((_request, response) => {
    imageFetches += 1;
    response.writeHead(200, { 'Content-Type': 'image/png' }).end(tinyPng());
  });
  await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
  imageUrl = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}/photo.png`;
  service = await startTestService({ env: { PULL_ALLOW_LOOPBACK: 'true' } });
  canvas = await service.project(49.5);
  photoBook = await service.project(29.99);
});
afterAll(async () => {
  await service?.close();
  imageServer?.closeAllConnections();
  imageServer?.close();
});

const withKey = (key: string) => ({ 'Idempotency-Key': key });

async function basketCount(token: string): Promise<number> {
  return (await service.request('GET', '/baskets', { token })).body.Baskets.length;
}

describe('Idempotency-Key', () => {
  it('answers a retried POST /basket with the first basket and creates only one', async () => {
    const token = await service.token(`idem-${randomUUID()}`);
    const key = randomUUID();
    const first = await service.request('POST', '/basket', { token, headers: withKey(key) });
    const retry = await service.request('POST', '/basket', { token, headers: withKey(key) });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(await basketCount(token)).toBe(1);
  });

  it('creates a new basket for every request without a key, and for every new key', async () => {
    const token = await service.token(`idem-${randomUUID()}`);
    await service.request('POST', '/basket', { token });
    await service.request('POST', '/basket', { token });
    const a = await service.request('POST', '/basket', { token, headers: withKey(randomUUID()) });
    const b = await service.request('POST', '/basket', { token, headers: withKey(randomUUID()) });
    expect(a.body.Guid).not.toBe(b.body.Guid);
    expect(await basketCount(token)).toBe(4);
  });

  it('scopes keys to the caller: two users with the same key get two baskets', async () => {
    const carol = await service.token(`idem-${randomUUID()}`);
    const dave = await service.token(`idem-${randomUUID()}`);
    const key = randomUUID();
    const forCarol = await service.request('POST', '/basket', { token: carol, headers: withKey(key) });
    const forDave = await service.request('POST', '/basket', { token: dave, headers: withKey(key) });
    expect(forCarol.status).toBe(200);
    expect(forDave.status).toBe(200);
    expect(forDave.headers.get('idempotent-replayed')).toBeNull();
    expect(forCarol.body.Guid).not.toBe(forDave.body.Guid);
    expect((await service.request('GET', `/basket/${forDave.body.Guid}`, { token: dave })).status).toBe(200);
    expect((await service.request('GET', `/basket/${forCarol.body.Guid}`, { token: dave })).status).toBe(404);
  });

  it('adds a line once for a retried request and refuses the key with a different body', async () => {
    const token = await service.token(`idem-${randomUUID()}`);
    const guid = (await service.request('POST', '/basket', { token })).body.Guid;
    const key = randomUUID();
    const first = await service.request('POST', `/basket/${guid}/line`, {
      token,
      json: { ProjectGuid: canvas, Quantity: 1 },
      headers: withKey(key),
    });
    const retry = await service.request('POST', `/basket/${guid}/line`, {
      token,
      json: { ProjectGuid: canvas, Quantity: 1 },
      headers: withKey(key),
    });
    expect(first.status).toBe(200);
    expect(retry.text).toBe(first.text);

    const different = await service.request('POST', `/basket/${guid}/line`, {
      token,
      json: { ProjectGuid: canvas, Quantity: 2 },
      headers: withKey(key),
    });
    expect(different.status).toBe(422);
    expect(different.body.Error.Code).toBe('IdempotencyKeyReused');
    const otherBasket = (await service.request('POST', '/basket', { token })).body.Guid;
    const otherPath = await service.request('POST', `/basket/${otherBasket}/line`, {
      token,
      json: { ProjectGuid: canvas, Quantity: 1 },
      headers: withKey(key),
    });
    expect(otherPath.status).toBe(422);

    const basket = (await service.request('GET', `/basket/${guid}`, { token })).body;
    expect(basket.Lines).toEqual([expect.objectContaining({ ProjectGuid: canvas, Quantity: 1 })]);
    expect((await service.request('GET', `/basket/${otherBasket}`, { token })).body.Lines).toEqual([]);
  });

  it('refuses a different JSON body under the same key even when its content type names a boundary', async () => {
    const token = await service.token(`idem-${randomUUID()}`);
    const guid = (await service.request('POST', '/basket', { token })).body.Guid;
    const key = randomUUID();
    // Cutting every `9` out of both bodies, as a boundary, would leave the same text.
    const addLine = (quantity: number) =>
      service.request('POST', `/basket/${guid}/line`, {
        token,
        json: { ProjectGuid: canvas, Quantity: quantity },
        headers: { 'Content-Type': 'application/json; boundary=9', ...withKey(key) },
      });
    expect((await addLine(1)).status).toBe(200);
    const different = await addLine(19);
    expect(different.status).toBe(422);
    expect(different.body.Error.Code).toBe('IdempotencyKeyReused');
    const basket = (await service.request('GET', `/basket/${guid}`, { token })).body;
    expect(basket.Lines).toEqual([expect.objectContaining({ ProjectGuid: canvas, Quantity: 1 })]);
  });

  it('lets a refused request be retried with its key once the input is fixed', async () => {
    const token = await service.token(`idem-${randomUUID()}`);
    const guid = (await service.request('POST', '/basket', { token })).body.Guid;
    const key = randomUUID();
    const unknownProject = await service.request('POST', `/basket/${guid}/line`, {
      token,
      json: { ProjectGuid: 'f'.repeat(32), Quantity: 1 },
      headers: withKey(key),
    });
    expect(unknownProject.status).toBe(400);
    // Nothing was stored for the failed attempt, so the key is free for the corrected request.
    const fixed = await service.request('POST', `/basket/${guid}/line`, {
      token,
      json: { ProjectGuid: photoBook, Quantity: 2 },
      headers: withKey(key),
    });
    expect(fixed.status).toBe(200);
    expect(fixed.body.Line.Quantity).toBe(2);
  });

  it('answers a retried checkout with the same checkout URL', async () => {
    const token = await service.token(`idem-${randomUUID()}`);
    const guid = (await service.request('POST', '/basket', { token })).body.Guid;
    await service.request('POST', `/basket/${guid}/line`, { token, json: { ProjectGuid: canvas, Quantity: 1 } });
    const key = randomUUID();
    const first = await service.request('POST', `/basket/${guid}/checkout`, { token, headers: withKey(key) });
    const retry = await service.request('POST', `/basket/${guid}/checkout`, { token, headers: withKey(key) });
    expect(first.status).toBe(200);
    expect(retry.body.CheckoutUrl).toBe(first.body.CheckoutUrl);
    // A new key checks out anew: of a changed basket, a new checkout (an unchanged one answers its open checkout).
    await service.request('POST', `/basket/${guid}/line`, { token, json: { ProjectGuid: canvas, Quantity: 1 } });
    const fresh = await service.request('POST', `/basket/${guid}/checkout`, { token, headers: withKey(randomUUID()) });
    expect(fresh.body.CheckoutUrl).not.toBe(first.body.CheckoutUrl);
  });

  it('creates one basket when the same key arrives many times at once', async () => {
    const token = await service.token(`idem-${randomUUID()}`);
    const key = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => service.request('POST', '/basket', { token, headers: withKey(key) })),
    );
    for (const response of responses) expect([200, 409]).toContain(response.status);
    const succeeded = responses.filter((response) => response.status === 200);
    expect(succeeded.length).toBeGreaterThan(0);
    expect(new Set(succeeded.map((response) => response.body.Guid)).size).toBe(1);
    for (const response of responses.filter((r) => r.status === 409)) {
      expect(response.body.Error).toMatchObject({ Code: 'IdempotencyKeyInUse', Retryable: true });
      expect(response.headers.get('retry-after')).toBe('1');
    }
    expect(await basketCount(token)).toBe(1);
  });

  it('answers a resent push form with the first item, even with a new multipart boundary', async () => {
    const apiKey = await service.apiKey('idem-push', 'library');
    const key = randomUUID();
    const push = (image: Buffer) => {
      const form = multipartBody([{ name: 'image', filename: 'photo.png', contentType: 'image/png', data: image }]);
      return service.request('POST', '/library/push', {
        apiKey,
        body: form.body,
        headers: { 'Content-Type': form.contentType, ...withKey(key) },
      });
    };
    const first = await push(tinyPng());
    expect(first.status).toBe(200);
    const resent = await push(tinyPng());
    expect(resent.headers.get('idempotent-replayed')).toBe('true');
    expect(resent.body.LibraryItem).toEqual(first.body.LibraryItem);
    const otherImage = Buffer.concat([tinyPng(), Buffer.from('different trailing bytes')]);
    expect((await push(otherImage)).status).toBe(422);
  });

  it('refuses a resent push form whose image differs where the boundary stood in it', async () => {
    const apiKey = await service.apiKey('idem-push', 'library');
    const key = randomUUID();
    // The image's bytes hold the attempt's own boundary, as a file may hold any bytes.
    const push = (boundary: string) => {
      const image = Buffer.concat([tinyPng(), Buffer.from(`trailing ${boundary} bytes`)]);
      const form = multipartBody(
        [{ name: 'image', filename: 'photo.png', contentType: 'image/png', data: image }],
        boundary,
      );
      return service.request('POST', '/library/push', {
        apiKey,
        body: form.body,
        headers: { 'Content-Type': form.contentType, ...withKey(key) },
      });
    };
    const first = await push(`first-${randomUUID()}`);
    expect(first.status).toBe(200);
    const resent = await push(`second-${randomUUID()}`);
    expect(resent.status).toBe(422);
    expect(resent.body.Error.Code).toBe('IdempotencyKeyReused');
  });

  it('answers a retried pull and multi pull without fetching again', async () => {
    const apiKey = await service.apiKey('idem-pull', 'library');
    const key = randomUUID();
    const before = imageFetches;
    const first = await service.request('POST', '/library/pull', {
      apiKey,
      json: { Url: imageUrl },
      headers: withKey(key),
    });
    expect(first.status).toBe(200);
    const retry = await service.request('POST', '/library/pull', {
      apiKey,
      json: { Url: imageUrl },
      headers: withKey(key),
    });
    expect(retry.text).toBe(first.text);
    expect(imageFetches).toBe(before + 1);

    const many = { Urls: [imageUrl, `${imageUrl}?2`] };
    const firstMany = await service.request('POST', '/library/multi/pull', {
      apiKey,
      json: many,
      headers: withKey(key),
    });
    expect(firstMany.status).toBe(200);
    const retryMany = await service.request('POST', '/library/multi/pull', {
      apiKey,
      json: many,
      headers: withKey(key),
    });
    expect(retryMany.headers.get('idempotent-replayed')).toBe('true');
    expect(retryMany.text).toBe(firstMany.text);
    expect(imageFetches).toBe(before + 3);
  });

  it('refuses a malformed key with a 400 and creates nothing', async () => {
    const token = await service.token(`idem-${randomUUID()}`);
    const response = await service.request('POST', '/basket', { token, headers: withKey('x'.repeat(256)) });
    expect(response.status).toBe(400);
    expect(response.body.Error.Code).toBe('InvalidIdempotencyKey');
    expect(await basketCount(token)).toBe(0);
  });
});
