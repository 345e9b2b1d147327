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
  const puts: { path: string; expect: unknown; reusedSocket: boolean }[] = [];
  const onResponse = (message: unknown) => {
    const { request } = message as { request: ClientRequest };
    if (
      request.method === 'PUT' &&
      request.host === '127.0.0.1' &&
      request.getHeader('host')?.toString().endsWith(`:${s3Port}`)
    )
      puts.push({
        path: request.path.split('?')[0]!,
        expect: request.getHeader('expect'),
        reusedSocket: request.reusedSocket,
      });
  };
  subscribe('http.client.response.finish', onResponse);
  const pushed: string[] = [];
  try {
    for (const size of [3_000_000, 3_000_001])
      pushed.push(...(await pushFiles(service.url, apiKey, [{ bytes: pngOfSize(size) }])).itemGuids);
  } finally {
    unsubscribe('http.client.response.finish', onResponse);
  }
  // The pushed originals' PUTs only: the same process makes renditions of these and earlier items meanwhile.
  const originals = puts.filter(({ path }) => pushed.some((itemGuid) => path.endsWith(`/${itemGuid}`)));
  expect(originals.map(({ expect: header, reusedSocket }) => ({ expect: header, reusedSocket }))).toEqual([
    { expect: undefined, reusedSocket: expect.any(Boolean) },
    { expect: undefined, reusedSocket: true },
  ]);
});
