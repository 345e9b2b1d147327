/**
 * The dimension sets AWS publishes its services' metrics under, for the metrics the stack reads. CloudWatch
 * keeps a metric per dimension set: a read with a set the service does not publish has no datapoints, so
 * its graph is empty and its alarm never fires, which nothing else would show. From the services' pages:
 * - API Gateway (REST): api-gateway-metrics-and-dimensions.html: ApiName; ApiName, Stage; ApiName, Method,
 *   Resource, Stage.
 * - Lambda: monitoring-metrics.html (dimensions): FunctionName; FunctionName, Resource; FunctionName,
 *   Resource, ExecutedVersion; none (all functions).
 * - DynamoDB: metrics-dimensions.html: table metrics by TableName (and GlobalSecondaryIndexName); operation
 *   metrics by TableName and Operation, where the stream's GetRecords also by StreamLabel ("used with metrics
 *   originating from Amazon DynamoDB Streams GetRecords operations").
 * - SQS: sqs-available-cloudwatch-metrics.html: QueueName.
 * - S3: metrics-dimensions.html (daily storage metrics): BucketName, StorageType.
 */
import type { MetricRead } from './metric-reads.ts';

export interface DimensionSet {
  /** The dimensions' names, all of them. */
  names: string[];
  /** Values a dimension must have in this set (where the read writes its value out). */
  values?: Record<string, readonly string[]>;
}

interface Published {
  metrics: string[];
  sets: DimensionSet[];
}

/** The DynamoDB operations AWS publishes operation metrics for with TableName alone. */
const TABLE_OPERATIONS = [
  'BatchExecuteStatement',
  'BatchGetItem',
  'BatchWriteItem',
  'DeleteItem',
  'ExecuteStatement',
  'ExecuteTransaction',
  'GetItem',
  'PutItem',
  'Query',
  'Scan',
  'TransactGetItems',
  'TransactWriteItems',
  'UpdateItem',
];

export const AWS_PUBLISHED_DIMENSIONS: Record<string, Published[]> = {
  'AWS/ApiGateway': [
    {
      metrics: ['4XXError', '5XXError', 'CacheHitCount', 'CacheMissCount', 'Count', 'IntegrationLatency', 'Latency'],
      sets: [
        { names: ['ApiName'] },
        { names: ['ApiName', 'Stage'] },
        { names: ['ApiName', 'Method', 'Resource', 'Stage'] },
      ],
    },
  ],
  'AWS/Lambda': [
    {
      metrics: ['ConcurrentExecutions', 'Duration', 'Errors', 'Invocations', 'IteratorAge', 'Throttles'],
      sets: [
        { names: ['FunctionName'] },
        { names: ['FunctionName', 'Resource'] },
        { names: ['ExecutedVersion', 'FunctionName', 'Resource'] },
        { names: [] },
      ],
    },
  ],
  'AWS/DynamoDB': [
    {
      metrics: ['ConsumedReadCapacityUnits', 'ConsumedWriteCapacityUnits', 'ReadThrottleEvents', 'WriteThrottleEvents'],
      sets: [{ names: ['TableName'] }, { names: ['GlobalSecondaryIndexName', 'TableName'] }],
    },
    {
      metrics: ['SuccessfulRequestLatency', 'SystemErrors', 'ThrottledRequests'],
      sets: [
        { names: ['Operation', 'TableName'], values: { Operation: TABLE_OPERATIONS } },
        { names: ['Operation', 'StreamLabel', 'TableName'], values: { Operation: ['GetRecords'] } },
      ],
    },
    {
      metrics: ['ReturnedBytes', 'ReturnedRecordsCount'],
      sets: [{ names: ['Operation', 'StreamLabel', 'TableName'], values: { Operation: ['GetRecords'] } }],
    },
  ],
  'AWS/SQS': [
    {
      metrics: [
        'ApproximateAgeOfOldestMessage',
        'ApproximateNumberOfMessagesDelayed',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesVisible',
        'NumberOfMessagesDeleted',
        'NumberOfMessagesReceived',
        'NumberOfMessagesSent',
      ],
      sets: [{ names: ['QueueName'] }],
    },
  ],
  'AWS/S3': [{ metrics: ['BucketSizeBytes', 'NumberOfObjects'], sets: [{ names: ['BucketName', 'StorageType'] }] }],
};

/** A value the template references (a token, `@…@`) is whatever the resource is named: it fits any set. */
const isToken = (value: string) => /^@.*@$/s.test(value);

const fits = (read: MetricRead, set: DimensionSet): boolean => {
  const names = Object.keys(read.dimensions).sort();
  if (names.join() !== [...set.names].sort().join()) return false;
  return Object.entries(set.values ?? {}).every(
    ([name, allowed]) => isToken(read.dimensions[name]!) || allowed.includes(read.dimensions[name]!),
  );
};

/** Why AWS publishes no metric `read` names (an AWS namespace), or undefined when it does. */
export function unpublishedBecause(read: MetricRead): string | undefined {
  const published = AWS_PUBLISHED_DIMENSIONS[read.namespace]?.find((entry) => entry.metrics.includes(read.name));
  if (!published) return `${read.namespace} ${read.name} is not in the table of what AWS publishes (aws-dimensions.ts)`;
  if (published.sets.some((set) => fits(read, set))) return undefined;
  const asRead = Object.entries(read.dimensions)
    .map(([name, value]) => `${name}=${value}`)
    .join(', ');
  const sets = published.sets.map((set) => `{${set.names.join(', ')}}`).join(' or ');
  return `${read.namespace} ${read.name} is published by ${sets}, not {${asRead}}`;
}
