/**
 * The alarms: what needs a person, each with a description that says where to look. Every alarm notifies
 * the topic when it fires and when it clears.
 */
import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { METRIC } from '../../../functions/shared/metric-names.ts';
import {
  allFunctionsOf,
  business,
  filledSum,
  FIVE_MINUTES,
  refusals,
  tableSystemErrors,
  tableThrottles,
  type Watched,
} from './metrics.ts';

/**
 * How long a message may wait in the renditions, fan-out or deliveries queue. A delivery's retry is a new
 * message delayed at most 14 minutes at a time (functions/webhooks/delivery-queue.ts), so a waiting retry
 * stays under this and does not alarm.
 */
const QUEUE_AGE_ALARM = Duration.minutes(15);
/**
 * Deliveries in flight (received, not yet deleted) past which the queue is stalling: retries wait delayed,
 * not in flight, so in flight are only attempts under way, at most `webhookMaxConcurrency` (20) batches of 1;
 * SQS stops handing out messages at about 120,000, which this leaves far off.
 */
const DELIVERIES_IN_FLIGHT_ALARM = 1_000;
/** Webhooks that start failing in the same five minutes before it is our side rather than their partners. */
const WEBHOOK_PARTNERS_FAILING_AT_ONCE = 3;

export interface AlarmProps extends Watched {
  namePrefix: string;
  api: RestApi;
  table: Table;
  topic: ITopic;
  serverErrorRate: number;
  latencyP99Ms: number;
}

export function createAlarms(scope: Construct, props: AlarmProps): Alarm[] {
  const alarms: Alarm[] = [];
  const alarm = (
    id: string,
    metric: IMetric,
    threshold: number,
    description: string,
    evaluationPeriods = 3,
    datapointsToAlarm = 2,
  ) => {
    const created = new Alarm(scope, id, {
      alarmName: `${props.namePrefix}-${id}`,
      alarmDescription: description,
      metric,
      threshold,
      evaluationPeriods,
      datapointsToAlarm,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    created.addAlarmAction(new SnsAction(props.topic));
    created.addOkAction(new SnsAction(props.topic));
    alarms.push(created);
  };
  const { api, renditions } = props;
  const consumers = props.streamConsumers;
  const queueConsumers = [renditions, ...props.webhooks.consumers].map((consumed) => consumed.handlerFunction);

  alarm(
    'api-5xx-rate',
    api.metricServerError({ statistic: 'Average', period: Duration.minutes(1) }),
    props.serverErrorRate,
    `More than ${props.serverErrorRate * 100}% of requests answered 5xx in 3 of 5 minutes. A handler's 500 is not a Lambda error: the access log names the route (status, resource, errorType). docs/operations.md, Alarms.`,
    5,
    3,
  );
  alarm(
    'api-p99-latency',
    api.metricLatency({ statistic: 'p99', period: FIVE_MINUTES }),
    props.latencyP99Ms,
    `p99 latency at API Gateway above ${props.latencyP99Ms} ms in 2 of 3 five-minute periods. See duration per endpoint and cold starts.`,
  );
  for (const handlerFunction of allFunctionsOf(props)) {
    const fn = handlerFunction.function;
    const isAuthorizer = handlerFunction === props.authorizer;
    const consumer = consumers.find((candidate) => candidate.handlerFunction === handlerFunction);
    // The authorizer throws "Unauthorized" for a request with no credential header (it sees those only without
    // a cache, which drops the identity sources), and Lambda counts that as an error: its crashes are alarmed
    // from the gateway's side instead (authorizer-crashes). Refused credentials are Allows, no error at all.
    // A function throttled on every call has Throttles and no Errors: the sum is filled, or it never evaluates.
    const failures = isAuthorizer
      ? fn.metricThrottles({ period: FIVE_MINUTES })
      : filledSum(
          {
            errors: fn.metricErrors({ period: FIVE_MINUTES }),
            throttles: fn.metricThrottles({ period: FIVE_MINUTES }),
          },
          'errors + throttles',
        );
    alarm(
      `${handlerFunction.handlerName}-failures`,
      failures,
      1,
      isAuthorizer
        ? 'The authorizer was throttled: requests are failing with 500 before reaching any endpoint. docs/operations.md, Alarms.'
        : consumer
          ? consumer.monitoring.onFailure
          : queueConsumers.includes(handlerFunction)
            ? `${handlerFunction.handlerName} crashed, timed out or was throttled; the queue delivers the message again (see its log group).`
            : `${handlerFunction.handlerName}: invocations that crashed, timed out or were throttled (answers of 4xx/5xx are not counted here: the access log names the route of a 5xx, docs/operations.md, Alarms).`,
      1,
      1,
    );
  }
  for (const consumer of consumers) {
    const { late } = consumer.monitoring;
    alarm(
      `${consumer.name}-dead-letters`,
      consumer.metricDeadLetters(FIVE_MINUTES),
      1,
      `${consumer.monitoring.onDeadLetter} Queue: ${consumer.deadLetters.queueName}.`,
      1,
      1,
    );
    if (late)
      alarm(
        `${consumer.name}-late`,
        consumer.metricIteratorAge(Duration.minutes(1)),
        late.after.toMilliseconds(),
        `${late.description} (Iterator age at least ${late.after.toHumanString()} in 3 of 5 minutes.)`,
        5,
        3,
      );
  }
  alarm(
    'renditions-dead-letters',
    renditions.deadLetters.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum' }),
    1,
    `LibraryItemsAdded events whose renditions failed on every delivery, even the last (which records Failed): their items may still read Pending (queue ${renditions.deadLetters.queueName}). docs/operations.md, Alarms: npm run -s renditions -- --missing.`,
    1,
    1,
  );
  for (const { name, deadLetters } of props.webhooks.consumers)
    alarm(
      `${name}-dead-letters`,
      deadLetters.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum' }),
      1,
      `Webhook messages whose function failed on every delivery (storage, KMS or a bug, not a receiver's failure, which ends the delivery Failed): queue ${deadLetters.queueName}. Their deliveries may still read Pending.`,
      1,
      1,
    );
  alarm(
    'authorizer-crashes',
    filledSum(
      { failures: refusals('AUTHORIZER_FAILURE'), misconfigured: refusals('AUTHORIZER_CONFIGURATION_ERROR') },
      'authorizer crashes',
    ),
    1,
    'API Gateway answered 500 because the authorizer crashed, timed out or answered what the gateway cannot use (access log errorType AUTHORIZER_FAILURE or AUTHORIZER_CONFIGURATION_ERROR). Refused credentials are not counted: the authorizer lets them through to a 401. docs/operations.md, Alarms.',
    1,
    1,
  );
  alarm(
    'identity-keys-unreachable',
    business(METRIC.IdentityKeysUnreachable),
    1,
    "The authorizer could not fetch the issuer's keys (jwtJwksUrl) in 2 of 3 five-minute periods: bearer tokens it has no cached key for are refused 401 (reason unverifiable). docs/operations.md, Alarms.",
  );
  for (const consumed of [renditions, ...props.webhooks.consumers])
    alarm(
      `${consumed.name}-queue-age`,
      consumed.queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum' }),
      QUEUE_AGE_ALARM.toSeconds(),
      `A message of ${consumed.queue.queueName} has waited ${QUEUE_AGE_ALARM.toHumanString()} or more in 2 of 3 five-minute periods (SQS leaves out messages received 3 times or more): its consumer is throttled, failing or behind. docs/operations.md, Alarms.`,
    );
  alarm(
    'webhook-deliveries-in-flight',
    props.webhooks.deliveries.queue.metricApproximateNumberOfMessagesNotVisible({
      period: FIVE_MINUTES,
      statistic: 'Maximum',
    }),
    DELIVERIES_IN_FLIGHT_ALARM,
    `${DELIVERIES_IN_FLIGHT_ALARM} or more webhook deliveries in flight in 2 of 3 five-minute periods: attempts that neither end nor return (a hung consumer, messages received and never deleted). At about 120,000 SQS hands out nothing and every partner goes silent. docs/operations.md, Alarms.`,
  );
  alarm(
    'renditions-failed-by-service',
    business(METRIC.RenditionsFailedByService),
    1,
    "Library items whose renditions ended Failed for the service's sake (storage, time-outs on every attempt), not the image's: their owners see Failed for a good image. docs/operations.md, Alarms: find them, fix the cause, then make them again.",
    1,
    1,
  );
  alarm(
    'webhook-attempts-failing-widely',
    new MathExpression({
      expression: `IF(FILL(failed, 0) > FILL(delivered, 0) AND FILL(starting, 0) >= ${WEBHOOK_PARTNERS_FAILING_AT_ONCE}, 1, 0)`,
      usingMetrics: {
        failed: business(METRIC.WebhookAttemptsFailed),
        delivered: business(METRIC.WebhookAttemptsDelivered),
        starting: business(METRIC.WebhooksStartedFailing),
      },
      label: 'most attempts failing, across partners',
      period: FIVE_MINUTES,
    }),
    1,
    `Most webhook attempts failed in five minutes and ${WEBHOOK_PARTNERS_FAILING_AT_ONCE} or more webhooks that were delivering started failing in them: our side (egress, DNS, a change of ours), not one partner being down. docs/operations.md, Alarms.`,
    1,
    1,
  );
  alarm(
    'table-system-errors',
    tableSystemErrors(props.table),
    1,
    'DynamoDB answered internal errors (HTTP 500) in 2 of 3 five-minute periods; the SDK retries them, and what still fails answers 5xx or is retried by a queue or the stream. docs/operations.md, Alarms.',
  );
  alarm(
    'checkout-paid-twice',
    business(METRIC.CheckoutPaidTwice),
    1,
    'A completed checkout was completed again with another PaymentReference (409 CheckoutAlreadyCompleted): a second payment with no order, to refund. The complete-checkout log line "checkout paid twice" names the checkout, the order and both references.',
    1,
    1,
  );
  alarm(
    'table-throttles',
    tableThrottles(props.table),
    1,
    'DynamoDB throttled reads or writes (on-demand tables throttle on sudden hot partitions or account limits).',
  );
  return alarms;
}
