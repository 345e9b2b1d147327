/**
 * The image upload keeps its connection to S3. The SDK sends `Expect: 100-continue` for bodies of 2 MB and
 * more, and opens a new connection without keep-alive for each such request: in AWS a TCP and a TLS
 * handshake for every pushed image and every part. The service's S3 client turns the header off
 * (functions/shared/clients/s3.ts). Observed on the wire, through node's HTTP diagnostics channels.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { pngOfSize } from '../support/images.ts';
import { pushFiles } from '../support/library-push.ts';

let service: TestService;
let apiKey: string;

beforeAll(async () => {
  service = await startTestService();
  apiKey = await service.apiKey('s3-connections', 'library');
}, 60_000);

afterAll(async () => {
  await service?.close();
});

it("sends 3 MB images to S3 without Expect: 100-continue, the second over the first one's connection", async () => {
  const s3Port = new URL(service.storage.s3Endpoint).port;
  const puts: { expect: unknown; reusedSocket: boolean }[] = [];
  const onResponse = (message: unknown) => {
    const { request } = message as { request: ClientRequest };
    // The pushed images' PUTs; the renditions (`….webp`, made after each push) may land in between on a busy machine.
    if (
      request.method === 'PUT' &&
      !request.path.split('?')[0]?.endsWith('.webp') &&
      request.host === '127.0.0.1' &&
      request.getHeader('host')?.toString().endsWith(`:${s3Port}`)
    )
      puts.push({ expect: request.getHeader('expect'), reusedSocket: request.reusedSocket });
  };
  subscribe('http.client.response.finish', onResponse);
  try {
    await pushFiles(service.url, apiKey, [{ bytes: pngOfSize(3_000_000) }]);
    await pushFiles(service.url, apiKey, [{ bytes: pngOfSize(3_000_001) }]);
  } finally {
    unsubscribe('http.client.response.finish', onResponse);
  }
  expect(puts).toEqual([
    { expect: undefined, reusedSocket: expect.any(Boolean) },
    { expect: undefined, reusedSocket: true },
  ]);
});
