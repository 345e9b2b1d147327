/**
 * Renditions recorded while the item is claimed for the first time: whichever lands first, the user's
 * library entry ends up with what the item record says (docs/design.md, "an item claimed meanwhile").
 * Raced over HTTP against the local stack, the renditions delivered by the same handler as in AWS.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect } from 'vitest';
import { inProcessIt } from '../support/bundles.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { png } from '../support/images.ts';
import { pushFiles } from '../support/library-push.ts';
import { injectFault } from '../support/faults.ts';
import { LOCAL_AWS_ENV } from '../../lib/local/storage.ts';
import { publishEvent } from '../../functions/shared/events.ts';
import { itemsAddedEvent } from '../../functions/contracts/library-events.ts';
import { libraryEntryKey, libraryEntrySortKey, libraryItemKey } from '../../functions/store/keys.ts';

let service: TestService;
let apiKey: string;
let table: DynamoDBDocumentClient;

beforeAll(async () => {
  service = await startTestService();
  apiKey = await service.apiKey('renditions-claim-race', 'library');
  table = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: LOCAL_AWS_ENV.AWS_REGION,
      credentials: {
        accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID,
        secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY,
      },
      endpoint: service.storage.dynamoEndpoint,
    }),
  );
}, 60_000);
afterAll(() => service?.close());

const record = async (Key: Record<string, string>) =>
  (await table.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key, ConsistentRead: true }))).Item;

/** The item as before its renditions were made (no state; the objects stay, a redelivery puts them again). */
const forgetRenditions = (itemGuid: string) =>
  table.send(
    new UpdateCommand({
      TableName: process.env.TABLE_NAME,
      Key: libraryItemKey(itemGuid),
      UpdateExpression: 'REMOVE renditions',
    }),
  );

/** The commit's event once more, as a redelivery would hand it over; answers once it is handled. */
const redeliver = async (itemGuid: string) => {
  await publishEvent(
    itemsAddedEvent({ apiKeyId: 'test', anonymousUserId: '0'.repeat(32), createdAt: Date.now() }, [itemGuid]),
  );
  await service.drainEvents();
};

/** The claim's holds transaction (store/user-library-store.ts holdItems), sent only once `after` settles. */
const delayHold = async (after: Promise<unknown>) => {
  // The handlers' own client, which reads its endpoint when first imported: after the stack started.
  const { dynamoDbClient } = await import('../../functions/shared/clients/dynamodb.ts');
  return injectFault(dynamoDbClient, {
    command: (name, input) =>
      name === 'TransactWriteItemsCommand' &&
      JSON.stringify((input.TransactItems as unknown[])[0]).includes('SET userId = :user, claimToken = :token'),
    kind: 'delayed',
    times: 1,
    after,
  });
};

inProcessIt(
  "a first claim racing the renditions leaves the user's entry with the item record's renditions, 50 times",
  async () => {
    const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    for (let round = 0; round < 50; round++) {
      const { itemGuids, productBuilderUrl } = await pushFiles(service.url, apiKey, [{ bytes: png(3, 2, round) }]);
      const itemGuid = itemGuids[0]!;
      await service.drainEvents();
      await forgetRenditions(itemGuid);
      const userId = `claim-race-${round}-${Date.now()}`;
      const token = await service.token(userId);
      // The claim reads the item at once and holds it up to 45 ms later, while the renditions are recorded
      // at their own pace: they land before the read, between the read and the hold, or after the hold.
      const fault = await delayHold(later((round % 10) * 5));
      try {
        const [claim] = await Promise.all([
          service.request('POST', '/library/claim', { token, json: { ProductBuilderUrl: productBuilderUrl } }),
          redeliver(itemGuid),
        ]);
        expect(claim.status, claim.text).toBe(200);
      } finally {
        fault.remove();
      }
      await service.drainEvents();
      const item = await record(libraryItemKey(itemGuid));
      expect(item?.renditions?.status, itemGuid).toBe('Ready');
      const entry = await record(libraryEntryKey(userId, libraryEntrySortKey(item as never)));
      expect(entry?.renditions, `round ${round}`).toEqual(item?.renditions);
    }
  },
  180_000,
);
