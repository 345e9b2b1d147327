/**
 * What the constructs with a dead-letter queue share: the queue itself (encrypted, TLS only, 14 days, as
 * long as SQS keeps a message) with cdk-nag's acknowledgment that it needs no dead-letter queue of its own,
 * and the token cdk-nag writes for a resource's ARN in the findings an acknowledgment names.
 */
import { Duration, Names, RemovalPolicy, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct, IConstruct } from 'constructs';

/** A dead-letter queue; `whose` says whose failures it receives, for the acknowledgment. */
export function deadLetterQueue(scope: Construct, queueName: string, whose: string): Queue {
  const queue = new Queue(scope, 'DeadLetters', {
    queueName,
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const reason = `This queue is the dead-letter destination of ${whose}; a dead-letter queue of its own would only move the same messages once more.`;
  Validations.of(queue).acknowledge({ id: 'AwsSolutions-SQS3', reason }, { id: 'Serverless-SQSRedrivePolicy', reason });
  return queue;
}

/**
 * `<LogicalId.Arn>`, as cdk-nag names a resource's ARN in an IAM5 finding. Seen from a nested stack the ARN
 * is the parameter CDK passes it in, `referenceto<unique id>Arn`.
 */
export function nagArnOf(resource: IConstruct, seenFrom: IConstruct = resource): string {
  const element = resource.node.defaultChild as CfnElement;
  return Stack.of(seenFrom) === Stack.of(resource)
    ? `<${Stack.of(resource).getLogicalId(element)}.Arn>`
    : `<referenceto${Names.uniqueId(element)}Arn>`;
}
