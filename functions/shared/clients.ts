/**
 * AWS SDK clients, created once per execution environment and shared by every module that imports them.
 * Endpoints point at the local stand-ins when DYNAMODB_ENDPOINT / S3_ENDPOINT are set.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { config } from './config.ts';

const dynamoEndpoint = config.dynamoDbEndpoint;

/** The low-level client; tests and benchmarks attach counting or fault-injection middleware to its stack. */
export const dynamoDbClient = new DynamoDBClient(dynamoEndpoint ? { endpoint: dynamoEndpoint } : {});

export const dynamo = DynamoDBDocumentClient.from(dynamoDbClient, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
});

/** Marked pure so a bundle that never uses S3 leaves the S3 client out (about 160 KiB, and its load time). */
export const s3 = /* @__PURE__ */ new S3Client(config.s3Endpoint ? { endpoint: config.s3Endpoint, forcePathStyle: true } : {});
