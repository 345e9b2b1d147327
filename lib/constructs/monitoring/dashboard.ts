/**
 * The dashboard an operator reads top to bottom: the alarms, the API's health, one line per endpoint,
 * authentication, Lambda (throttles, cold starts), storage, the stream consumers, renditions and business
 * figures.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  LogQueryVisualizationType,
  LogQueryWidget,
  Metric,
  SingleValueWidget,
  TextWidget,
  type Alarm,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import type { HandlerFunction } from '../handler-function.ts';
import { BUSINESS_BYTES, BUSINESS_COUNTS, METRIC } from '../../../functions/shared/metric-names.ts';
import {
  allFunctionsOf,
  business,
  FIVE_MINUTES,
  GATEWAY_REFUSALS,
  refusals,
  refusedCredentials,
  tableSystemErrors,
  type Watched,
} from './metrics.ts';
import { addPipelineRows } from './dashboard-pipelines.ts';

/** Logs Insights' most log groups in one query. */
export const LOGS_INSIGHTS_MAX_LOG_GROUPS = 50;

/** `items` in runs of at most `size`, in order. */
const runsOf = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, (index + 1) * size));

export interface DashboardProps extends Watched {
  namePrefix: string;
  api: RestApi;
  table: Table;
  bucket: IBucket;
  alarms: Alarm[];
}

export function createDashboard(scope: Construct, props: DashboardProps): Dashboard {
  const { api, endpoints } = props;
  const allFunctions = allFunctionsOf(props);
  const labelled = (endpoint: HandlerFunction, metric: Metric) => metric.with({ label: endpoint.handlerName });
  const perEndpoint = (metric: (fn: HandlerFunction['function']) => Metric) =>
    endpoints.map(({ endpoint }) => labelled(endpoint, metric(endpoint.function)));
  const region = Stack.of(scope).region;
  const dashboard = new Dashboard(scope, 'Dashboard', {
    dashboardName: props.namePrefix,
    defaultInterval: Duration.hours(3),
  });
  const wide = { width: 12, height: 6 };
  const third = { width: 8, height: 6 };
  const apiStat = (statistic: string, label: string) => ({ period: FIVE_MINUTES, statistic, label });
  dashboard.addWidgets(
    new TextWidget({
      markdown: [
        `# ${props.namePrefix}`,
        'Top: is the API healthy. Then per endpoint (one line per route, named by handler), authentication, Lambda, storage, and business figures.',
        `Logs: [access log](https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}#logsV2:log-groups) \`/aws/apigateway/${props.namePrefix}/access\`, functions \`/aws/lambda/${props.namePrefix}-<handler>\`. Cold/warm latency queries: docs/operations.md, Logs.`,
      ].join('\n\n'),
      width: 24,
      height: 3,
    }),
    new AlarmStatusWidget({ title: 'Alarms', alarms: props.alarms, width: 24, height: 4 }),
  );
  dashboard.addWidgets(
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
  dashboard.addWidgets(
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
  dashboard.addWidgets(
    new GraphWidget({
      title:
        "Refused at the gateway (401 / 403 / authorizer failure / 429), refused credentials, issuer's keys unreachable",
      left: [...GATEWAY_REFUSALS.map(refusals), refusedCredentials(), business(METRIC.IdentityKeysUnreachable)],
      ...third,
    }),
    new GraphWidget({
      title: 'Authorizer invocations, missing credentials+errors, p99 ms',
      left: [
        props.authorizer.function.metricInvocations({ period: FIVE_MINUTES }),
        props.authorizer.function.metricErrors({ period: FIVE_MINUTES, label: 'no credential, or failed' }),
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
  // Logs Insights reads at most 50 log groups per query: one pair of widgets per 50 functions.
  const logGroupRuns = runsOf(
    allFunctions.map((e) => e.logGroup.logGroupName),
    LOGS_INSIGHTS_MAX_LOG_GROUPS,
  );
  logGroupRuns.forEach((logGroupNames, index) => {
    const part = logGroupRuns.length > 1 ? ` (${index + 1} of ${logGroupRuns.length})` : '';
    dashboard.addWidgets(
      new LogQueryWidget({
        title: `Cold starts per function (REPORT lines with an init duration)${part}`,
        logGroupNames,
        queryLines: [
          'filter @type = "REPORT"',
          'stats count(@initDuration) as coldStarts, count(*) as invocations, round(100 * count(@initDuration) / count(*), 1) as coldPct, round(pct(@initDuration, 99)) as initP99Ms by @log',
          'sort coldStarts desc',
        ],
        ...wide,
      }),
      new LogQueryWidget({
        title: `Cold starts over time${part}`,
        logGroupNames,
        queryLines: [
          'filter @type = "REPORT"',
          'stats count(@initDuration) as coldStarts, count(*) as invocations by bin(5m)',
        ],
        view: LogQueryVisualizationType.LINE,
        ...wide,
      }),
    );
  });
  dashboard.addWidgets(
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
        tableSystemErrors(props.table),
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
  addPipelineRows(dashboard, props);
  dashboard.addWidgets(
    new GraphWidget({ title: 'Business: counts per 5 minutes', left: BUSINESS_COUNTS.map(business), ...wide }),
    new SingleValueWidget({
      title: 'Business: totals over the time range',
      metrics: [...BUSINESS_COUNTS, ...BUSINESS_BYTES].map(business),
      setPeriodToTimeRange: true,
      ...wide,
    }),
  );
  return dashboard;
}
