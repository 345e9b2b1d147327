/**
 * The DynamoDB recorder (lib/local/dynamodb-recorder.ts) in front of the run's DynamoDB Local: real SDK
 * calls signed with a function's credentials are forwarded unchanged and recorded as the IAM requests they
 * stand for (a transaction as its items' actions, an index Query on the index with its partition key), once
 * each; calls signed with the tools' key are not recorded. Only calls the template allows are made here: the
 * run's own recorder logs them too, and the run fails on a denied one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  type DynamoDBClientConfig,
} from '@aws-sdk/client-dynamodb';
import { readAwsCallLog, shapeOf } from '../../lib/local/aws-call-log.ts';
import { startDynamoDbRecorder, type DynamoDbRecorder } from '../../lib/local/dynamodb-recorder.ts';
import { functionCredentials, TOOL_CREDENTIALS } from '../../lib/local/function-credentials.ts';
import { ensureTableAndBucket, startLocalStorage, type LocalStorage } from '../../lib/local/storage.ts';
import { serviceTemplateAccess } from '../support/iam/check.ts';
import { evaluateCalls } from '../support/iam/evaluate-calls.ts';

let storage: LocalStorage;
let recorder: DynamoDbRecorder;
let logDir: string;
let tableName: string;

const clientAs = (credentials: DynamoDBClientConfig['credentials']) =>
  new DynamoDBClient({ endpoint: recorder.endpoint, region: 'us-east-1', credentials });

beforeAll(async () => {
  storage = await startLocalStorage({});
  tableName = storage.tableName ?? 'photo-commerce-recorder-test';
  await ensureTableAndBucket(storage, tableName, 'recorder-test');
  logDir = mkdtempSync(join(tmpdir(), 'aws-calls-'));
  recorder = await startDynamoDbRecorder(storage.dynamoEndpoint, logDir);
});

afterAll(async () => {
  await recorder?.close();
  await storage?.close();
  rmSync(logDir, { recursive: true, force: true });
});

describe('DynamoDB recorder', () => {
  it('records a function’s calls as IAM sees them, and evaluates them against the template', async () => {
    const fn = clientAs(functionCredentials('claim-library-items'));
    const S = (value: string) => ({ S: value });
    await fn.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: tableName, Item: { PK: S('LIBITEM#r1'), SK: S('LIBITEM') } } },
          {
            ConditionCheck: {
              TableName: tableName,
              Key: { PK: S('BUILDER#t1'), SK: S('BUILDER') },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
        ],
      }),
    );
    await fn.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'GSI1',
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'GSI1PK' },
        ExpressionAttributeValues: { ':pk': S('LIBUSER#u1') },
      }),
    );
    // Repeated: recorded once.
    for (let i = 0; i < 3; i++)
      await fn.send(new GetItemCommand({ TableName: tableName, Key: { PK: S('LIBITEM#r1'), SK: S('LIBITEM') } }));
    // The tools' key: not a function's, not recorded.
    await clientAs(TOOL_CREDENTIALS).send(
      new GetItemCommand({ TableName: tableName, Key: { PK: S('USER#x'), SK: S('X') } }),
    );
    fn.destroy();

    const calls = readAwsCallLog(logDir);
    const table = `arn:aws:dynamodb:us-east-1:000000000000:table/${shapeOf(tableName)}`;
    const keyId = functionCredentials('claim-library-items').accessKeyId;
    const secure = { 'aws:SecureTransport': 'true' };
    expect(calls).toEqual([
      {
        accessKeyId: keyId,
        action: 'dynamodb:PutItem',
        resource: table,
        context: { ...secure, 'dynamodb:LeadingKeys': ['LIBITEM#r1'] },
        via: 'TransactWriteItems',
      },
      {
        accessKeyId: keyId,
        action: 'dynamodb:ConditionCheckItem',
        resource: table,
        context: { ...secure, 'dynamodb:LeadingKeys': ['BUILDER#t1'] },
        via: 'TransactWriteItems',
      },
      {
        accessKeyId: keyId,
        action: 'dynamodb:Query',
        resource: `${table}/index/GSI1`,
        context: { ...secure, 'dynamodb:LeadingKeys': ['LIBUSER#u1'] },
        via: 'Query',
      },
      {
        accessKeyId: keyId,
        action: 'dynamodb:GetItem',
        resource: table,
        context: { ...secure, 'dynamodb:LeadingKeys': ['LIBITEM#r1'] },
        via: 'GetItem',
      },
    ]);
    const verdicts = await evaluateCalls(calls, serviceTemplateAccess());
    expect(verdicts.map((verdict) => verdict.reason ?? 'allowed')).toEqual([
      'allowed',
      'allowed',
      'allowed',
      'allowed',
    ]);
  }, 180_000);
});
