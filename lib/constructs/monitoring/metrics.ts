/**
 * The metrics that the alarms and the dashboard share: the service's own (EMF, namespace from
 * functions/shared/metric-names.ts), API Gateway's refusals counted from the access log, and the list of
 * every function the stack runs.
 */
import { Duration, Fn } from 'aws-cdk-lib';
import { MathExpression, Metric, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { Operation, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FilterPattern, MetricFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { Endpoint } from '../route-groups.ts';
import type { HandlerFunction } from '../handler-function.ts';
import type { Renditions } from '../renditions.ts';
import type { Webhooks } from '../webhooks.ts';
import type { StreamConsumer } from '../stream-consumer.ts';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../../functions/shared/metric-names.ts';

export const FIVE_MINUTES = Duration.minutes(5);

/** API Gateway refusals, counted from the access log (its `errorType` field). */
export const GATEWAY_REFUSALS_METRIC = 'GatewayRefusals';

/** The access log's `errorType` values that mean API Gateway answered without reaching an endpoint. */
export const GATEWAY_REFUSALS = [
  'UNAUTHORIZED',
  'ACCESS_DENIED',
  'AUTHORIZER_FAILURE',
  'AUTHORIZER_CONFIGURATION_ERROR',
  'THROTTLED',
] as const;

/** What the alarms and the dashboard are drawn from. */
export interface Watched {
  endpoints: Endpoint[];
  authorizer: HandlerFunction;
  streamConsumers: StreamConsumer[];
  renditions: Renditions;
  webhooks: Webhooks;
}

export const allFunctionsOf = (watched: Watched): HandlerFunction[] => [
  ...watched.endpoints.map(({ endpoint }) => endpoint),
  watched.authorizer,
  ...watched.streamConsumers.map((consumer) => consumer.handlerFunction),
  watched.renditions.handlerFunction,
  ...watched.webhooks.consumers.map((consumer) => consumer.handlerFunction),
];

/**
 * The sum of series that may have no datapoint in a period (a count published only when it is not zero, a
 * function not invoked): CloudWatch's arithmetic has no value where one operand has none, so each series is
 * `FILL`ed with 0 and the sum evaluates whenever any of them has a datapoint.
 */
export const filledSum = (usingMetrics: Record<string, IMetric>, label: string, period = FIVE_MINUTES) =>
  new MathExpression({
    expression: Object.keys(usingMetrics)
      .map((id) => `FILL(${id}, 0)`)
      .join(' + '),
    usingMetrics,
    label,
    period,
  });

/**
 * The table operations the service calls (the functions' DynamoDB commands, and the stream consumers'
 * GetRecords): DynamoDB publishes SystemErrors per operation, and an alarm reads at most 10 metrics.
 */
export const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
  Operation.GET_RECORDS,
] as const;

/**
 * The dimensions DynamoDB publishes an operation's metrics under: the table and the operation, and for the
 * stream's GetRecords also the stream's label (the last part of its ARN, `…:table/<name>/stream/<label>`).
 */
const operationDimensions = (table: ITable, operation: Operation): Record<string, string> =>
  operation === Operation.GET_RECORDS
    ? {
        TableName: table.tableName,
        Operation: operation,
        StreamLabel: Fn.select(3, Fn.split('/', table.tableStreamArn!)),
      }
    : { TableName: table.tableName, Operation: operation };

/** DynamoDB's internal errors (HTTP 500) on the table, over the operations the service calls. */
export const tableSystemErrors = (table: ITable) =>
  filledSum(
    Object.fromEntries(
      TABLE_OPERATIONS.map((operation) => [
        operation.charAt(0).toLowerCase() + operation.slice(1),
        new Metric({
          namespace: 'AWS/DynamoDB',
          metricName: 'SystemErrors',
          dimensionsMap: operationDimensions(table, operation),
          statistic: 'Sum',
          period: FIVE_MINUTES,
        }),
      ]),
    ),
    'system errors',
  );

/** Read and write throttle events of the table. */
export const tableThrottles = (table: ITable) =>
  filledSum(
    {
      reads: table.metric('ReadThrottleEvents', { statistic: 'Sum', period: FIVE_MINUTES }),
      writes: table.metric('WriteThrottleEvents', { statistic: 'Sum', period: FIVE_MINUTES }),
    },
    'throttle events',
  );

/** A five-minute sum of one of the service's own metrics. */
export const serviceSum = (metricName: string, dimensionsMap: Record<string, string>, label: string) =>
  new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap,
    statistic: 'Sum',
    period: FIVE_MINUTES,
    label,
  });

/** One business figure (functions/shared/metric-names.ts), summed over five minutes. */
export const business = (name: string) => serviceSum(name, { service: SERVICE_NAME }, name);

/** One kind of gateway refusal, from the metric filter `countGatewayRefusals` creates. */
export const refusals = (type: string) => serviceSum(GATEWAY_REFUSALS_METRIC, { ErrorType: type }, type);

/**
 * Refused credentials (malformed, expired, unknown key, ...): the authorizer lets them through to the route's
 * handler, which answers 401 with the reason, so they carry no errorType; the access log names them by the
 * authorizer's principalId `refused` (functions/auth/authorize.ts).
 */
export const REFUSED_CREDENTIALS_METRIC = 'RefusedCredentials';

export const refusedCredentials = () =>
  serviceSum(REFUSED_CREDENTIALS_METRIC, {}, '401 refused credential (answered by the handler)');

export function countGatewayRefusals(scope: Construct, accessLogs: ILogGroup): void {
  new MetricFilter(scope, 'RefusedCredentials', {
    logGroup: accessLogs,
    metricNamespace: METRICS_NAMESPACE,
    metricName: REFUSED_CREDENTIALS_METRIC,
    filterPattern: FilterPattern.stringValue('$.principalId', '=', 'refused'),
    metricValue: '1',
  });
  new MetricFilter(scope, 'GatewayRefusals', {
    logGroup: accessLogs,
    metricNamespace: METRICS_NAMESPACE,
    metricName: GATEWAY_REFUSALS_METRIC,
    filterPattern: FilterPattern.any(
      ...GATEWAY_REFUSALS.map((type) => FilterPattern.stringValue('$.errorType', '=', type)),
    ),
    metricValue: '1',
    dimensions: { ErrorType: '$.errorType' },
  });
}
