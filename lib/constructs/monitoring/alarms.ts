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
import { allFunctionsOf, business, FIVE_MINUTES, type Watched } from './metrics.ts';

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

  alarm(
    'api-5xx-rate',
    api.metricServerError({ statistic: 'Average', period: Duration.minutes(1) }),
    props.serverErrorRate,
    `More than ${props.serverErrorRate * 100}% of requests answered 5xx in 3 of 5 minutes. See the dashboard's endpoint errors and the access log (errorType).`,
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
    // The authorizer throws "Unauthorized" for a request without credentials, which Lambda counts as an error.
    const failures = isAuthorizer
      ? fn.metricThrottles({ period: FIVE_MINUTES })
      : new MathExpression({
          expression: 'errors + throttles',
          usingMetrics: {
            errors: fn.metricErrors({ period: FIVE_MINUTES }),
            throttles: fn.metricThrottles({ period: FIVE_MINUTES }),
          },
          label: 'errors + throttles',
          period: FIVE_MINUTES,
        });
    alarm(
      `${handlerFunction.handlerName}-failures`,
      failures,
      1,
      isAuthorizer
        ? 'The authorizer was throttled: requests are failing with 500 before reaching any endpoint.'
        : consumer
          ? consumer.monitoring.onFailure
          : handlerFunction === renditions.handlerFunction
            ? 'The renditions function crashed, timed out or was throttled; the queue delivers the message again (see its log group).'
            : `${handlerFunction.handlerName}: invocations that crashed, timed out or were throttled (answered 4xx/5xx are not counted here).`,
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
    'checkout-paid-twice',
    business(METRIC.CheckoutPaidTwice),
    1,
    'A completed checkout was completed again with another PaymentReference (409 CheckoutAlreadyCompleted): a second payment with no order, to refund. The complete-checkout log line "checkout paid twice" names the checkout, the order and both references.',
    1,
    1,
  );
  alarm(
    'table-throttles',
    new MathExpression({
      expression: 'reads + writes',
      usingMetrics: {
        reads: props.table.metric('ReadThrottleEvents', { statistic: 'Sum', period: FIVE_MINUTES }),
        writes: props.table.metric('WriteThrottleEvents', { statistic: 'Sum', period: FIVE_MINUTES }),
      },
      label: 'throttle events',
      period: FIVE_MINUTES,
    }),
    1,
    'DynamoDB throttled reads or writes (on-demand tables throttle on sudden hot partitions or account limits).',
  );
  return alarms;
}
