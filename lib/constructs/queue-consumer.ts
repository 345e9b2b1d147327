/**
 * A function fed by an SQS queue (renditions, the webhook fan-out and deliveries): one message per
 * invocation, failures reported per message, and the checks' findings that do not apply to such a function
 * acknowledged with why.
 */
import { Names, Validations } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { HandlerFunction } from './handler-function.ts';

export function consumeQueue(consumer: HandlerFunction, queue: IQueue): void {
  consumer.function.addEventSource(new SqsEventSource(queue, { batchSize: 1, reportBatchItemFailures: true }));
  Validations.of(consumer.function).acknowledge({
    id: 'Serverless-LambdaDLQ',
    reason:
      "The function is invoked by its SQS event source mapping, never asynchronously; failed messages go to the queue's dead-letter queue.",
  });
  const mapping = consumer.function.node.findChild(`SqsEventSource:${Names.nodeUniqueId(queue.node)}`);
  Validations.of(mapping.node.defaultChild ?? mapping).acknowledge({
    id: 'Serverless-LambdaEventSourceMappingDestination',
    reason:
      "An SQS event source mapping takes no on-failure destination (only stream and Kafka sources do); the queue's redrive policy moves a message to the dead-letter queue after maxReceiveCount deliveries.",
  });
}
