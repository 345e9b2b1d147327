/**
 * A push as a client app sends it (fetch's FormData and an API key), for tests that need images in the
 * library: one file goes to POST /library/push as the part `image`, several to POST /library/multi/push.
 * The push itself, refusals included, is tested in test/integration/library-push.test.ts.
 */
import { expect } from 'vitest';
import type { TestService } from './service.ts';

export interface PushFile {
  bytes: Buffer;
  /** The form's file name; default `photo<index>.png`. */
  name?: string;
}

export interface Pushed {
  body: any;
  /** In request order. */
  itemGuids: string[];
  productBuilderUrl: string;
  /** The push's API request id (`x-amzn-RequestId`). */
  requestId: string | null;
}

/** Pushes `files` and expects 200. `multi`: a multi push even for one file. */
export async function pushFiles(
  baseUrl: string,
  apiKey: string,
  files: PushFile[],
  options: { multi?: boolean } = {},
): Promise<Pushed> {
  const multi = options.multi ?? files.length !== 1;
  const form = new FormData();
  files.forEach(({ bytes, name }, index) =>
    form.append(multi ? `image${index}` : 'image', new Blob([bytes]), name ?? `photo${index}.png`),
  );
  const response = await fetch(`${baseUrl}${multi ? '/library/multi/push' : '/library/push'}`, {
    method: 'POST',
    headers: { 'X-SERVICE-API-Key': apiKey },
    body: form,
  });
  const body = (await response.json()) as any;
  expect(response.status, JSON.stringify(body)).toBe(200);
  const items = (body.LibraryItems ?? [body.LibraryItem]) as { ItemGuid: string }[];
  return {
    body,
    itemGuids: items.map((item) => item.ItemGuid),
    productBuilderUrl: body.ProductBuilderUrl,
    requestId: response.headers.get('x-amzn-requestid'),
  };
}

/** The item as `GET /library/{itemGuid}` answers it once the events so far are handled (its renditions decided). */
export async function decidedItem(service: TestService, apiKey: string, itemGuid: string): Promise<any> {
  await service.drainEvents();
  const read = await service.request('GET', `/library/${itemGuid}`, { apiKey });
  expect(read.status, read.text).toBe(200);
  return read.body.LibraryItem;
}
