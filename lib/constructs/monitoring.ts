/**
 * One dashboard an operator reads top to bottom (health, per endpoint, auth, Lambda, storage, business),
 * alarms on what needs a person, and the SNS topic they notify. Widgets are written by hand rather than
 * with cdk-monitoring-constructs: that library gives every function its own block of widgets and alarms,
 * 33 blocks here, where one graph with a line per endpoint answers "which endpoint" at a glance.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  LogQueryVisualizationType,
  LogQueryWidget,
  MathExpression,
  Metric,
  SingleValueWidget,
  TextWidget,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { FilterPattern, MetricFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { Endpoint } from './api.ts';
import type { Renditions } from './renditions.ts';
import type { HandlerFunction } from './handler-function.ts';
import type { StreamConsumer } from './stream-consumer.ts';
import {
  BUSINESS_BYTES,
  BUSINESS_COUNTS,
  METRIC,
  METRICS_NAMESPACE,
  SERVICE_NAME,
  RENDITION_COUNTS,
} from '../../functions/shared/metric-names.ts';

/** API Gateway refusals, counted from the access log (its `errorType` field). */
export const GATEWAY_REFUSALS_METRIC = 'GatewayRefusals';

export interface MonitoringProps {
  namePrefix: string;
  api: RestApi;
  accessLogs: ILogGroup;
  endpoints: Endpoint[];
  authorizer: HandlerFunction;
  /** The table stream's consumers: each gets its failures, dead-letter (and lateness) alarms and a dashboard row. */
  streamConsumers: StreamConsumer[];
  renditions: Renditions;
  table: Table;
  bucket: IBucket;
  alarmEmail: string;
  serverErrorRate: number;
  latencyP99Ms: number;
}

const FIVE_MINUTES = Duration.minutes(5);

export class Monitoring extends Construct {
  readonly dashboard: Dashboard;
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { api, endpoints } = props;

    this.topic = new Topic(this, 'AlarmTopic', { displayName: `${props.namePrefix} alarms`, enforceSSL: true });
    if (props.alarmEmail !== '') this.topic.addSubscription(new EmailSubscription(props.alarmEmail));

    /** A five-minute sum of one of the service's own metrics. */
    const serviceSum = (metricName: string, dimensionsMap: Record<string, string>, label: string) =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap,
        statistic: 'Sum',
        period: FIVE_MINUTES,
        label,
      });
    const business = (name: string) => serviceSum(name, { service: SERVICE_NAME }, name);
    const labelled = (endpoint: HandlerFunction, metric: Metric) => metric.with({ label: endpoint.handlerName });
    const perEndpoint = (metric: (fn: HandlerFunction['function']) => Metric) =>
      endpoints.map(({ endpoint }) => labelled(endpoint, metric(endpoint.function)));
    const consumers = props.streamConsumers;
    const allFunctions = [
      ...endpoints.map(({ endpoint }) => endpoint),
      props.authorizer,
      ...consumers.map((consumer) => consumer.handlerFunction),
      props.renditions.handlerFunction,
    ];

    new MetricFilter(this, 'GatewayRefusals', {
      logGroup: props.accessLogs,
      metricNamespace: METRICS_NAMESPACE,
      metricName: GATEWAY_REFUSALS_METRIC,
      filterPattern: FilterPattern.any(
        ...['UNAUTHORIZED', 'ACCESS_DENIED', 'AUTHORIZER_FAILURE', 'AUTHORIZER_CONFIGURATION_ERROR', 'THROTTLED'].map(
          (type) => FilterPattern.stringValue('$.errorType', '=', type),
        ),
      ),
      metricValue: '1',
      dimensions: { ErrorType: '$.errorType' },
    });
    const refusals = (type: string) => serviceSum(GATEWAY_REFUSALS_METRIC, { ErrorType: type }, type);

    // ---- Alarms ----
    const alarm = (
      id: string,
      metric: IMetric,
      threshold: number,
      description: string,
      evaluationPeriods = 3,
      datapointsToAlarm = 2,
    ) => {
      const created = new Alarm(this, id, {
        alarmName: `${props.namePrefix}-${id}`,
        alarmDescription: description,
        metric,
        threshold,
        evaluationPeriods,
        datapointsToAlarm,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(new SnsAction(this.topic));
      created.addOkAction(new SnsAction(this.topic));
      this.alarms.push(created);
      return created;
    };
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
    for (const handlerFunction of allFunctions) {
      const fn = handlerFunction.function;
      const isAuthorizer = handlerFunction === props.authorizer;
      const consumer = consumers.find((candidate) => candidate.handlerFunction === handlerFunction);
      // The authorizer throws "Unauthorized" for every refused credential, which Lambda counts as an error.
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
            : handlerFunction === props.renditions.handlerFunction
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
    const renditions = props.renditions;
    alarm(
      'renditions-dead-letters',
      renditions.deadLetters.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum' }),
      1,
      `LibraryItemsAdded events whose renditions failed on every delivery, even the last (which records Failed): their items may still read Pending (queue ${renditions.deadLetters.queueName}). docs/operations.md, Alarms: npm run -s renditions -- --missing.`,
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

    // ---- Dashboard ----
    const region = Stack.of(this).region;
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: props.namePrefix,
      defaultInterval: Duration.hours(3),
    });
    const wide = { width: 12, height: 6 };
    const third = { width: 8, height: 6 };
    const apiStat = (statistic: string, label: string) => ({ period: FIVE_MINUTES, statistic, label });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: [
          `# ${props.namePrefix}`,
          'Top: is the API healthy. Then per endpoint (one line per route, named by handler), authentication, Lambda, storage, and business figures.',
          `Logs: [access log](https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}#logsV2:log-groups) \`/aws/apigateway/${props.namePrefix}/access\`, functions \`/aws/lambda/${props.namePrefix}-<handler>\`. Cold/warm latency queries: docs/operations.md, Logs.`,
        ].join('\n\n'),
        width: 24,
        height: 3,
      }),
      new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24, height: 4 }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'API requests',
        left: [api.metricCount(apiStat('Sum', 'requests'))],
        ...third,
      }),
      new GraphWidget({
        title: 'API 4xx / 5xx',
        left: [api.metricClientError(apiStat('Sum', '4xx')), api.metricServerError(apiStat('Sum', '5xx'))],
        ...third,
      }),
      new GraphWidget({
        title: 'API latency (ms)',
        left: [
          api.metricLatency(apiStat('p50', 'p50')),
          api.metricLatency(apiStat('p99', 'p99')),
          api.metricIntegrationLatency(apiStat('p99', 'integration p99')),
        ],
        ...third,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Requests per endpoint (invocations)',
        left: perEndpoint((fn) => fn.metricInvocations({ period: FIVE_MINUTES })),
        ...wide,
      }),
      new GraphWidget({
        title: 'Errors per endpoint (crashes, timeouts)',
        left: perEndpoint((fn) => fn.metricErrors({ period: FIVE_MINUTES })),
        ...wide,
      }),
      new GraphWidget({
        title: 'Duration p50 per endpoint (ms)',
        left: perEndpoint((fn) => fn.metricDuration({ period: FIVE_MINUTES, statistic: 'p50' })),
        ...wide,
      }),
      new GraphWidget({
        title: 'Duration p99 per endpoint (ms)',
        left: perEndpoint((fn) => fn.metricDuration({ period: FIVE_MINUTES, statistic: 'p99' })),
        ...wide,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Refused at the gateway (401 / 403 / authorizer failure / 429)',
        left: [
          'UNAUTHORIZED',
          'ACCESS_DENIED',
          'AUTHORIZER_FAILURE',
          'AUTHORIZER_CONFIGURATION_ERROR',
          'THROTTLED',
        ].map(refusals),
        ...third,
      }),
      new GraphWidget({
        title: 'Authorizer invocations, refusals+errors, p99 ms',
        left: [
          props.authorizer.function.metricInvocations({ period: FIVE_MINUTES }),
          props.authorizer.function.metricErrors({ period: FIVE_MINUTES, label: 'refused or failed' }),
        ],
        right: [props.authorizer.function.metricDuration({ period: FIVE_MINUTES, statistic: 'p99', label: 'p99 ms' })],
        ...third,
      }),
      new GraphWidget({
        title: 'Lambda throttles per function',
        left: allFunctions.map((e) => labelled(e, e.function.metricThrottles({ period: FIVE_MINUTES }))),
        ...third,
      }),
    );
    const logGroupNames = allFunctions.map((e) => e.logGroup.logGroupName);
    this.dashboard.addWidgets(
      new LogQueryWidget({
        title: 'Cold starts per function (REPORT lines with an init duration)',
        logGroupNames,
        queryLines: [
          'filter @type = "REPORT"',
          'stats count(@initDuration) as coldStarts, count(*) as invocations, round(100 * count(@initDuration) / count(*), 1) as coldPct, round(pct(@initDuration, 99)) as initP99Ms by @log',
          'sort coldStarts desc',
        ],
        ...wide,
      }),
      new LogQueryWidget({
        title: 'Cold starts over time',
        logGroupNames,
        queryLines: [
          'filter @type = "REPORT"',
          'stats count(@initDuration) as coldStarts, count(*) as invocations by bin(5m)',
        ],
        view: LogQueryVisualizationType.LINE,
        ...wide,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'DynamoDB consumed capacity',
        left: [
          props.table.metricConsumedReadCapacityUnits({ period: FIVE_MINUTES, label: 'read units' }),
          props.table.metricConsumedWriteCapacityUnits({ period: FIVE_MINUTES, label: 'write units' }),
        ],
        ...third,
      }),
      new GraphWidget({
        title: 'DynamoDB throttles and system errors',
        left: [
          props.table.metric('ReadThrottleEvents', { statistic: 'Sum', period: FIVE_MINUTES, label: 'read throttles' }),
          props.table.metric('WriteThrottleEvents', {
            statistic: 'Sum',
            period: FIVE_MINUTES,
            label: 'write throttles',
          }),
          props.table.metricSystemErrorsForOperations({ period: FIVE_MINUTES, label: 'system errors' }),
        ],
        ...third,
      }),
      new GraphWidget({
        title: 'Image bytes in (stored by the service) and bucket size',
        left: BUSINESS_BYTES.map(business),
        right: [
          new Metric({
            namespace: 'AWS/S3',
            metricName: 'BucketSizeBytes',
            dimensionsMap: { BucketName: props.bucket.bucketName, StorageType: 'StandardStorage' },
            statistic: 'Average',
            period: Duration.days(1),
            label: 'bucket size (daily)',
          }),
        ],
        ...third,
      }),
    );
    for (const consumer of consumers) {
      const { title, counts, counted } = consumer.monitoring;
      this.dashboard.addWidgets(
        new GraphWidget({
          title: `${title}: ${counted}, and dead letters`,
          left: counts.map(business),
          right: [consumer.metricDeadLetters(FIVE_MINUTES).with({ label: 'dead letters' })],
          ...wide,
        }),
        new GraphWidget({
          title: `${title}: stream iterator age (ms) and errors`,
          left: [consumer.metricIteratorAge(FIVE_MINUTES).with({ label: 'iterator age max' })],
          right: [consumer.handlerFunction.function.metricErrors({ period: FIVE_MINUTES, label: 'errors' })],
          ...wide,
        }),
      );
    }
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Renditions: Ready and Failed; dead letters',
        left: RENDITION_COUNTS.map(business),
        right: [
          renditions.deadLetters.metricApproximateNumberOfMessagesVisible({
            period: FIVE_MINUTES,
            statistic: 'Maximum',
            label: 'dead letters',
          }),
        ],
        ...wide,
      }),
      new GraphWidget({
        title: 'Renditions: queue age (s), duration p99 (ms)',
        left: [
          renditions.queue.metricApproximateAgeOfOldestMessage({
            period: FIVE_MINUTES,
            statistic: 'Maximum',
            label: 'oldest message',
          }),
        ],
        right: [
          renditions.handlerFunction.function.metricDuration({
            period: FIVE_MINUTES,
            statistic: 'p99',
            label: 'p99 ms',
          }),
        ],
        ...wide,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({ title: 'Business: counts per 5 minutes', left: BUSINESS_COUNTS.map(business), ...wide }),
      new SingleValueWidget({
        title: 'Business: totals over the time range',
        metrics: [...BUSINESS_COUNTS, ...BUSINESS_BYTES].map(business),
        setPeriodToTimeRange: true,
        ...wide,
      }),
    );
  }
}
