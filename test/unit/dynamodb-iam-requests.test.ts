/** DynamoDB requests as IAM authorizes them (lib/local/dynamodb-iam-requests.ts): actions, resources, leading keys. */
import { describe, expect, it } from 'vitest';
import { dynamoDbIamRequests } from '../../lib/local/dynamodb-iam-requests.ts';
import { accessKeyIdOf } from '../../lib/local/dynamodb-recorder.ts';

const TABLE = 'arn:aws:dynamodb:us-east-1:000000000000:table/t';
const S = (value: string) => ({ S: value });
const key = (pk: string) => ({ PK: S(pk), SK: S('X') });
const summary = (operation: string, body: Record<string, unknown>) =>
  dynamoDbIamRequests(operation, body).map(
    ({ action, resource, context }) => `${action} ${resource} ${JSON.stringify(context['dynamodb:LeadingKeys'])}`,
  );

describe('DynamoDB requests as IAM sees them', () => {
  it('a TransactWriteItems: one action per item, each on its own key', () => {
    expect(
      summary('TransactWriteItems', {
        TransactItems: [
          { Put: { TableName: 't', Item: { ...key('USER#1'), Total: S('1') } } },
          { Update: { TableName: 't', Key: key('ORDER#1') } },
          { Delete: { TableName: 't', Key: key('CHECKOUT#1') } },
          { ConditionCheck: { TableName: 't', Key: key('LIBITEM#1') } },
        ],
      }),
    ).toEqual([
      `dynamodb:PutItem ${TABLE} ["USER#1"]`,
      `dynamodb:UpdateItem ${TABLE} ["ORDER#1"]`,
      `dynamodb:DeleteItem ${TABLE} ["CHECKOUT#1"]`,
      `dynamodb:ConditionCheckItem ${TABLE} ["LIBITEM#1"]`,
    ]);
  });

  it('a TransactGetItems: a GetItem per item', () => {
    expect(summary('TransactGetItems', { TransactItems: [{ Get: { TableName: 't', Key: key('A#1') } }] })).toEqual([
      `dynamodb:GetItem ${TABLE} ["A#1"]`,
    ]);
  });

  it('batches: one action per table, with every partition key (once)', () => {
    expect(
      summary('BatchGetItem', {
        RequestItems: { t: { Keys: [key('A#1'), key('B#1'), key('A#1')] }, u: { Keys: [key('C#1')] } },
      }),
    ).toEqual([
      `dynamodb:BatchGetItem ${TABLE} ["A#1","B#1"]`,
      `dynamodb:BatchGetItem ${TABLE.replace('/t', '/u')} ["C#1"]`,
    ]);
    expect(
      summary('BatchWriteItem', {
        RequestItems: { t: [{ PutRequest: { Item: key('A#1') } }, { DeleteRequest: { Key: key('B#1') } }] },
      }),
    ).toEqual([`dynamodb:BatchWriteItem ${TABLE} ["A#1","B#1"]`]);
  });

  it("a Query: on the index it names, with that index's partition key", () => {
    expect(
      summary('Query', {
        TableName: 't',
        IndexName: 'GSI1',
        KeyConditionExpression: '#p = :p AND begins_with(GSI1SK, :s)',
        ExpressionAttributeNames: { '#p': 'GSI1PK' },
        ExpressionAttributeValues: { ':p': S('APIKEYS'), ':s': S('x') },
      }),
    ).toEqual([`dynamodb:Query ${TABLE}/index/GSI1 ["APIKEYS"]`]);
    expect(
      summary('Query', {
        TableName: 't',
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': S('USER#1') },
      }),
    ).toEqual([`dynamodb:Query ${TABLE} ["USER#1"]`]);
    expect(summary('Query', { TableName: 't', KeyConditions: { PK: { AttributeValueList: [S('USER#2')] } } })).toEqual([
      `dynamodb:Query ${TABLE} ["USER#2"]`,
    ]);
  });

  it('a call that names no key carries no dynamodb:LeadingKeys; every call is over TLS', () => {
    const [scan] = dynamoDbIamRequests('Scan', { TableName: 't' });
    expect(scan).toEqual({ action: 'dynamodb:Scan', resource: TABLE, context: { 'aws:SecureTransport': 'true' } });
  });

  it("reads the caller's access key id from a SigV4 Authorization header", () => {
    expect(
      accessKeyIdOf(
        'AWS4-HMAC-SHA256 Credential=LOCALFNgetBasket/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=ab',
      ),
    ).toBe('LOCALFNgetBasket');
    expect(accessKeyIdOf(undefined)).toBeUndefined();
  });
});
