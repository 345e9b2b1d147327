/**
 * The local KMS and SQS stand-ins through the real SDK clients: they answer what the service uses as AWS
 * does, and refuse what AWS refuses (a ciphertext under another encryption context, an unknown key, an
 * unknown queue, a delay past SQS's 15 minutes, a malformed trace header), so a mistake in the webhook code fails locally as it would in
 * AWS.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_WEBHOOK_KEY_ALIAS, startLocalKms, type LocalKms } from '../../lib/local/kms.ts';
import { startLocalSqsFront, type LocalSqsFront } from '../../lib/local/sqs-front.ts';
import { startLocalQueue, type LocalQueue } from '../../lib/local/event-delivery.ts';
import { LOCAL_AWS_ENV } from '../../lib/local/storage.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'local-kms-sqs-'));
const credentials = {
  accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID,
  secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY,
};
let kms: LocalKms;
let front: LocalSqsFront;
let queue: LocalQueue;
let kmsClient: KMSClient;
let sqsClient: SQSClient;
const handled: string[] = [];

beforeAll(async () => {
  kms = await startLocalKms(dataDir);
  front = await startLocalSqsFront();
  queue = startLocalQueue({
    name: 'checked',
    handler: 'checked',
    maxReceiveCount: 3,
    folder: join(dataDir, 'queue'),
    endpoint: front.endpoint,
    loadHandler: async () => async (event) => {
      handled.push(...event.Records.map((record) => record.body));
      return { batchItemFailures: [] };
    },
  });
  front.serve(queue);
  kmsClient = new KMSClient({ endpoint: kms.endpoint, region: 'us-east-1', credentials });
  sqsClient = new SQSClient({ endpoint: front.endpoint, region: 'us-east-1', credentials });
});
afterAll(async () => {
  await queue?.close();
  await front?.close();
  await kms?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the local KMS', () => {
  it('decrypts only with the encryption context it encrypted with, and knows only its key', async () => {
    const sealed = await kmsClient.send(
      new EncryptCommand({
        KeyId: LOCAL_WEBHOOK_KEY_ALIAS,
        Plaintext: Buffer.from('whsec_secret'),
        EncryptionContext: { WebhookId: 'a' },
      }),
    );
    expect(sealed.KeyId).toBe(kms.keyArn);
    const opened = await kmsClient.send(
      new DecryptCommand({ CiphertextBlob: sealed.CiphertextBlob, EncryptionContext: { WebhookId: 'a' } }),
    );
    expect(Buffer.from(opened.Plaintext!).toString()).toBe('whsec_secret');
    await expect(
      kmsClient.send(
        new DecryptCommand({ CiphertextBlob: sealed.CiphertextBlob, EncryptionContext: { WebhookId: 'b' } }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
    await expect(
      kmsClient.send(new EncryptCommand({ KeyId: 'alias/another', Plaintext: Buffer.from('x') })),
    ).rejects.toMatchObject({ name: 'NotFoundException' });
  });
});

describe('the local SQS front', () => {
  it('takes messages for its queues, with the MD5 the SDK checks', async () => {
    // With the trace header, as the service's SQS client sends every message in a traced invocation.
    const traceHeader = { DataType: 'String', StringValue: 'Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1' };
    await sqsClient.send(
      new SendMessageCommand({
        QueueUrl: queue.url,
        MessageBody: 'one',
        MessageSystemAttributes: { AWSTraceHeader: traceHeader },
      }),
    );
    const batch = await sqsClient.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: [
          { Id: 'a', MessageBody: 'two' },
          { Id: 'b', MessageBody: 'three', MessageSystemAttributes: { AWSTraceHeader: traceHeader } },
        ],
      }),
    );
    expect(batch.Successful?.map((entry) => entry.Id)).toEqual(['a', 'b']);
    await queue.drain();
    expect(handled.sort()).toEqual(['one', 'three', 'two']);
  });

  it('refuses what SQS refuses', async () => {
    await expect(
      sqsClient.send(new SendMessageCommand({ QueueUrl: `${front.endpoint}/000000000000/missing`, MessageBody: 'x' })),
    ).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
    await expect(
      sqsClient.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'x', DelaySeconds: 901 })),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(
      sqsClient.send(
        new SendMessageCommand({
          QueueUrl: queue.url,
          MessageBody: 'x',
          MessageSystemAttributes: { AWSTraceHeader: { DataType: 'Number', StringValue: '1' } },
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
  });
});
