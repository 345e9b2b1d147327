/**
 * A DynamoDB API request as IAM sees it: the actions it is authorized as, each on its resource, with the
 * condition keys IAM evaluates. IAM has no action for a transaction: a TransactWriteItems is authorized as
 * one PutItem, UpdateItem, DeleteItem or ConditionCheckItem per item, a TransactGetItems as one GetItem per
 * item, each on its own key. A batch is one action per table, with every partition key it names.
 *
 * Reads the request as it goes over the wire (X-Amz-Target and the JSON body), so the recorder in front of
 * DynamoDB Local and an SDK middleware after serialization share it.
 */
import { table } from '../../functions/store/table.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './aws-call-log.ts';

/** One IAM authorization a request needs. */
export interface IamRequest {
  action: string;
  resource: string;
  /** Condition keys and their values, as IAM's request context holds them. */
  context: Record<string, string | string[]>;
}

type AttributeValue = Record<string, unknown>;
type Key = Record<string, AttributeValue | undefined>;
type Body = Record<string, any>;

const tableArn = (tableName: string) => `arn:aws:dynamodb:${LOCAL_REGION}:${LOCAL_ACCOUNT}:table/${tableName}`;

/** The partition key attribute of the table, or of the index a Query names. */
const partitionKeyOf = (indexName: string | undefined) =>
  indexName === undefined
    ? table.partitionKey
    : (table.globalSecondaryIndexes.find((index) => index.indexName === indexName)?.partitionKey ?? table.partitionKey);

/** A key attribute's value as IAM compares it: S, N and B alike are strings in the request's JSON. */
const scalar = (value: AttributeValue | undefined): string | undefined => {
  const scalarValue = value?.S ?? value?.N ?? value?.B;
  return typeof scalarValue === 'string' ? scalarValue : undefined;
};

const leadingKeys = (keys: (Key | undefined)[], attribute: string = table.partitionKey): string[] => [
  ...new Set(keys.map((key) => scalar(key?.[attribute])).filter((value): value is string => value !== undefined)),
];

/**
 * The request context of a call on `keys`. `dynamodb:LeadingKeys` is left out when the call names no
 * key (a Scan): IAM leaves it out too, and the evaluator refuses a statement conditioned on a key the call lacks.
 */
const contextOf = (keys: string[]): IamRequest['context'] => ({
  // In AWS every SDK call goes over HTTPS; locally over plain loopback HTTP, which IAM never sees.
  'aws:SecureTransport': 'true',
  ...(keys.length > 0 ? { 'dynamodb:LeadingKeys': keys } : {}),
});

/** The partition key value a Query's key condition names (expression or the legacy KeyConditions). */
function queryKey(body: Body): Key {
  const attribute = partitionKeyOf(body.IndexName);
  if (body.KeyConditions) return { [attribute]: body.KeyConditions[attribute]?.AttributeValueList?.[0] };
  const names = (body.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const placeholders = Object.keys(names).filter((name) => names[name] === attribute);
  const nameOrPlaceholder = [attribute, ...placeholders].map((name) => name.replace(/[#$]/g, '\\$&')).join('|');
  const placeholder = new RegExp(`(?:^|[\\s(])(?:${nameOrPlaceholder})\\s*=\\s*(:\\w+)`).exec(
    body.KeyConditionExpression ?? '',
  )?.[1];
  return { [attribute]: placeholder ? body.ExpressionAttributeValues?.[placeholder] : undefined };
}

const TRANSACT_WRITE_ACTIONS: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
};

/** The IAM requests of the DynamoDB operation `operation` (X-Amz-Target without its prefix) with `body`. */
export function dynamoDbIamRequests(operation: string, body: Body): IamRequest[] {
  const single = (action: string, tableName: string, keys: (Key | undefined)[], attribute?: string): IamRequest => ({
    action,
    resource: tableArn(tableName),
    context: contextOf(leadingKeys(keys, attribute)),
  });
  switch (operation) {
    case 'GetItem':
    case 'DeleteItem':
    case 'UpdateItem':
      return [single(`dynamodb:${operation}`, body.TableName, [body.Key])];
    case 'PutItem':
      return [single('dynamodb:PutItem', body.TableName, [body.Item])];
    case 'Query': {
      const request = single('dynamodb:Query', body.TableName, [queryKey(body)], partitionKeyOf(body.IndexName));
      return [body.IndexName ? { ...request, resource: `${request.resource}/index/${body.IndexName}` } : request];
    }
    case 'BatchGetItem':
      return Object.entries(body.RequestItems as Record<string, { Keys: Key[] }>).map(([tableName, request]) =>
        single('dynamodb:BatchGetItem', tableName, request.Keys),
      );
    case 'BatchWriteItem':
      return Object.entries(body.RequestItems as Record<string, Body[]>).map(([tableName, writes]) =>
        single(
          'dynamodb:BatchWriteItem',
          tableName,
          writes.map((write) => write.PutRequest?.Item ?? write.DeleteRequest?.Key),
        ),
      );
    case 'TransactGetItems':
      return (body.TransactItems as { Get: Body }[]).map(({ Get }) =>
        single('dynamodb:GetItem', Get.TableName, [Get.Key]),
      );
    case 'TransactWriteItems':
      return (body.TransactItems as Record<string, Body>[]).flatMap((member) =>
        Object.entries(member).map(([kind, item]) =>
          single(TRANSACT_WRITE_ACTIONS[kind] ?? `dynamodb:${kind}`, item.TableName, [item.Key ?? item.Item]),
        ),
      );
    default:
      // Table-level operations (Scan, DescribeTable, ...): the action on the table, no key.
      return [single(`dynamodb:${operation}`, body.TableName ?? '*', [])];
  }
}
