/**
 * SQS's SendMessage and SendMessageBatch, locally, for the queues the functions send to through the real
 * @aws-sdk/client-sqs (the webhook fan-out sends deliveries; the delivery function sends each retry,
 * delayed). It answers as SQS does, with the body's MD5 that the SDK checks, and refuses what SQS refuses:
 * an unknown queue, a delay over 900 s, a batch of more than 10, a system attribute other than the trace
 * header (`AWSTraceHeader`, a String, which functions/shared/tracing.ts sets).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LOCAL_ACCOUNT, LOCAL_REGION, type ServiceCall } from './aws-call-log.ts';
import { AwsJsonError, signerOf, startAwsJsonFront, type AwsJsonFront } from './aws-json-front.ts';
import type { LocalQueue } from './event-delivery.ts';

/** SQS's limit: DelaySeconds at most 15 minutes. */
const MAX_DELAY_SECONDS = 900;

export interface LocalSqsFront extends AwsJsonFront {
  /** Serves the queue at its URL from now on. */
  serve(queue: LocalQueue): void;
}

interface SendEntry {
  Id?: string;
  MessageBody: string;
  DelaySeconds?: number;
  MessageSystemAttributes?: Record<string, { DataType?: string; StringValue?: string }>;
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/** The ARN of the queue at `url` (`<endpoint>/<account>/<name>`), as IAM names it. */
const queueArn = (url: string) => `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${url.slice(url.lastIndexOf('/') + 1)}`;

/** `onCall` is told of every call, by the access key that signed it (the IAM check's record). */
export async function startLocalSqsFront(port = 0, onCall?: (call: ServiceCall) => void): Promise<LocalSqsFront> {
  const queues = new Map<string, LocalQueue>();
  // SendMessageBatch is authorized as sqs:SendMessage, as IAM does.
  const report = (operation: string, action: string, queueUrl: string, request: IncomingMessage) =>
    onCall?.({ accessKeyId: signerOf(request), action, resource: queueArn(queueUrl), via: operation });
  const queueOf = (url: string) => {
    const queue = queues.get(url);
    if (!queue) throw new AwsJsonError('QueueDoesNotExist', `The specified queue ${url} does not exist.`);
    return queue;
  };
  const sendTo = (queue: LocalQueue, entry: SendEntry) => {
    const delay = entry.DelaySeconds ?? 0;
    if (!Number.isInteger(delay) || delay < 0 || delay > MAX_DELAY_SECONDS)
      throw new AwsJsonError('InvalidParameterValue', `DelaySeconds must be 0 to ${MAX_DELAY_SECONDS}.`);
    for (const [name, value] of Object.entries(entry.MessageSystemAttributes ?? {}))
      if (name !== 'AWSTraceHeader' || value.DataType !== 'String' || !value.StringValue)
        throw new AwsJsonError('InvalidParameterValue', `Message system attribute ${name} is not valid.`);
    queue.send(entry.MessageBody, delay);
    return { MessageId: randomUUID(), MD5OfMessageBody: md5(entry.MessageBody) };
  };

  const front = await startAwsJsonFront(
    'AmazonSQS.',
    {
      SendMessage(input: SendEntry & { QueueUrl: string }, request) {
        report('SendMessage', 'sqs:SendMessage', input.QueueUrl, request);
        return sendTo(queueOf(input.QueueUrl), input);
      },
      SendMessageBatch(input: { QueueUrl: string; Entries: (SendEntry & { Id: string })[] }, request) {
        report('SendMessageBatch', 'sqs:SendMessage', input.QueueUrl, request);
        const queue = queueOf(input.QueueUrl);
        if (input.Entries.length === 0 || input.Entries.length > 10)
          throw new AwsJsonError('TooManyEntriesInBatchRequest', 'A batch holds 1 to 10 entries.');
        return { Successful: input.Entries.map((entry) => ({ Id: entry.Id, ...sendTo(queue, entry) })), Failed: [] };
      },
    },
    port,
  );
  return {
    ...front,
    serve: (queue) => void queues.set(queue.url, queue),
  };
}
