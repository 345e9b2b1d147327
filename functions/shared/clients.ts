/**
 * AWS SDK clients, created once per execution environment and shared by every module that imports them.
 * Endpoints point at the local stand-ins when DYNAMODB_ENDPOINT / S3_ENDPOINT are set.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { config } from './config.ts';

const dynamoEndpoint = config.dynamoDbEndpoint;
const s3Endpoint = config.s3Endpoint;

/** The low-level client; tests and benchmarks attach counting or fault-injection middleware to its stack. */
export const dynamoDbClient = new DynamoDBClient(dynamoEndpoint ? { endpoint: dynamoEndpoint } : {});

export const dynamo = DynamoDBDocumentClient.from(dynamoDbClient, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
});

export const s3 = new S3Client(s3Endpoint ? { endpoint: s3Endpoint, forcePathStyle: true } : {});
