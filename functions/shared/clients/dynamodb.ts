/**
 * The DynamoDB clients, created once per execution environment and shared by every module that imports
 * them. One module per AWS service, so a handler's bundle holds only the clients it uses (S3 alone is
 * about 160 KiB minified and its load time). The endpoint points at DynamoDB Local when DYNAMODB_ENDPOINT is set.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { traced } from '../tracing.ts';

const endpoint = config.dynamoDbEndpoint;

/** The low-level client; tests and benchmarks attach counting or fault-injection middleware to its stack. */
export const dynamoDbClient = traced(new DynamoDBClient(endpoint ? { endpoint } : {}));

export const dynamo = DynamoDBDocumentClient.from(dynamoDbClient, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
});
