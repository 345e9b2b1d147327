/**
 * Source mode signs as Lambda would: each invocation's SDK calls and presigned URLs with its own function's
 * credentials (lib/local/source-invocations.ts), and what runs outside any invocation (the tests' own store
 * calls, the CLIs) with the tools' key, however the two interleave. The local S3 checks each signature and
 * the IAM check attributes each call by it.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { functionCredentials, TOOL_CREDENTIALS } from '../../lib/local/function-credentials.ts';
import { pushFiles } from '../support/library-push.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
/** Command and access key of every DynamoDB call of this process, in order. */
const signed: string[] = [];

beforeAll(async () => {
  service = await startTestService({ renditions: false });
  const { dynamoDbClient } = await import('../../functions/shared/clients/dynamodb.ts');
  dynamoDbClient.middlewareStack.add(
    (next, context) => async (args) => {
      const { headers } = args.request as { headers: Record<string, string> };
      signed.push(`${context.commandName} ${/Credential=([^/]+)\//.exec(headers.authorization ?? '')?.[1]}`);
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'note-signer' },
  );
});

afterAll(() => service?.close());

it("signs a handler's calls with its function's key, and the tests' own with the tools' key, in turn", async () => {
  const token = await service.token('signer');
  for (let round = 0; round < 2; round++) {
    signed.length = 0;
    expect((await service.request('POST', '/basket', { token })).status).toBe(200);
    await service.apiKey(`signer-${round}`, 'library');
    const basket = functionCredentials('create-basket').accessKeyId;
    expect(signed).toEqual([
      `GetItemCommand ${basket}`,
      `TransactWriteItemsCommand ${basket}`,
      `PutItemCommand ${TOOL_CREDENTIALS.accessKeyId}`,
      `PutItemCommand ${TOOL_CREDENTIALS.accessKeyId}`,
    ]);
  }
});

it('presigns download URLs with the function that answered them, and the local S3 takes them', async () => {
  const apiKey = await service.apiKey('signer-library', 'library');
  const bytes = readFileSync(new URL('../fixtures/images/jpeg-progressive.jpg', import.meta.url));
  const { itemGuids } = await pushFiles(service.url, apiKey, [{ bytes, name: 'photo.jpg' }]);
  const read = await service.request('GET', `/library/${itemGuids[0]}`, { apiKey });
  const downloadUrl = new URL(read.body.LibraryItem.DownloadUrl as string);
  expect(downloadUrl.searchParams.get('X-Amz-Credential')).toMatch(
    new RegExp(`^${functionCredentials('get-library-item').accessKeyId}/`),
  );
  const download = await fetch(downloadUrl);
  expect(download.status).toBe(200);
  expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
});
