/**
 * The metrics the synthesized template reads (test/support/metrics): each AWS metric with a dimension set
 * AWS publishes it under (the table, aws-dimensions.ts), and the emitted-metrics check the test command runs
 * after the last file: what it takes from an EMF line, from the template, and what it finds.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { emfLine } from '../../functions/shared/metrics.ts';
import { metricsOfEmfLine, type EmittedMetric } from '../../lib/local/metric-log.ts';
import { unpublishedBecause } from '../support/metrics/aws-dimensions.ts';
import { compareMetrics, findingLines } from '../support/metrics/check.ts';
import { filteredMetrics, metricReads, type MetricRead } from '../support/metrics/metric-reads.ts';
import { sharedServiceStack } from './stack.ts';

let reads: MetricRead[];
let resources: ReturnType<typeof sharedServiceStack>['resources'];
beforeAll(() => {
  ({ resources } = sharedServiceStack());
  reads = metricReads(resources);
}, 120_000);

const read = (namespace: string, name: string, dimensions: Record<string, string>, shown = true): MetricRead => ({
  namespace,
  name,
  dimensions,
  reader: shown ? 'widget "test"' : 'alarm test',
  shown,
});

describe('what the template reads', () => {
  it("every AWS metric with a dimension set AWS publishes it under, metric math's included", () => {
    const aws = reads.filter((metric) => metric.namespace.startsWith('AWS/'));
    expect(new Set(aws.map((metric) => metric.namespace))).toEqual(
      new Set(['AWS/ApiGateway', 'AWS/Lambda', 'AWS/DynamoDB', 'AWS/SQS', 'AWS/S3']),
    );
    expect(aws.map((metric) => unpublishedBecause(metric)).filter(Boolean)).toEqual([]);
    // The table's system errors are metric math in an alarm and in a widget: their metrics are read.
    const systemErrors = aws.filter((metric) => metric.name === 'SystemErrors');
    expect(new Set(systemErrors.map((metric) => metric.shown))).toEqual(new Set([true, false]));
  });

  it('the metrics of metric math in alarms and widgets, and those of the log metric filters', () => {
    const custom = (name: string) => reads.filter((metric) => metric.name === name);
    expect(custom('WebhooksStartedFailing').map((metric) => metric.reader)).toContain(
      'alarm photo-commerce-dev-webhook-attempts-failing-widely',
    );
    expect(custom('RenditionsFailedByService').some((metric) => metric.reader.includes('share of images'))).toBe(true);
    expect(custom('CheckoutPaidTwice')[0]?.dimensions).toEqual({ service: 'photo-commerce' });
    expect(filteredMetrics(resources)).toEqual([
      { namespace: 'PhotoCommerce', name: 'RefusedCredentials', dimensionNames: [] },
      { namespace: 'PhotoCommerce', name: 'GatewayRefusals', dimensionNames: ['ErrorType'] },
    ]);
  });

  it('refuses a SEARCH expression, whose metrics it cannot list', () => {
    const alarm = {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        AlarmName: 'searching',
        Metrics: [{ Id: 'e', Expression: "SEARCH('{AWS/Lambda} Errors', 'Sum')" }],
      },
    };
    expect(() => metricReads({ alarm })).toThrow(/alarm searching: a SEARCH expression/);
  });
});

describe('the table of the dimension sets AWS publishes', () => {
  it.each([
    [read('AWS/Lambda', 'Errors', { FunctionName: '@1@' }), undefined],
    [read('AWS/Lambda', 'Errors', {}), undefined],
    [read('AWS/DynamoDB', 'SystemErrors', { TableName: '@1@', Operation: 'GetItem' }), undefined],
    [
      read('AWS/DynamoDB', 'SystemErrors', { TableName: '@1@', Operation: 'GetRecords', StreamLabel: '@2@' }),
      undefined,
    ],
    [
      read('AWS/DynamoDB', 'SystemErrors', { TableName: '@1@', Operation: 'GetRecords' }),
      'AWS/DynamoDB SystemErrors is published by {Operation, TableName} or {Operation, StreamLabel, TableName}, not {TableName=@1@, Operation=GetRecords}',
    ],
    [
      read('AWS/Lambda', 'Errors', { TableName: '@1@' }),
      'AWS/Lambda Errors is published by {FunctionName} or {FunctionName, Resource} or {ExecutedVersion, FunctionName, Resource} or {}, not {TableName=@1@}',
    ],
    [
      read('AWS/ApiGateway', 'Count', { ApiName: 'api', Resource: '/x' }),
      'AWS/ApiGateway Count is published by {ApiName} or {ApiName, Stage} or {ApiName, Method, Resource, Stage}, not {ApiName=api, Resource=/x}',
    ],
    [
      read('AWS/States', 'ExecutionsFailed', { StateMachineArn: '@1@' }),
      'AWS/States ExecutionsFailed is not in the table of what AWS publishes (aws-dimensions.ts)',
    ],
  ])('%o: %s', (metric, reason) => {
    expect(unpublishedBecause(metric)).toBe(reason);
  });
});

describe('the emitted-metrics check', () => {
  const service = { service: 'photo-commerce' };
  const emitted = (name: string, dimensions = service, fn = 'create-basket'): EmittedMetric => ({
    namespace: 'PhotoCommerce',
    name,
    dimensions,
    function: fn,
  });

  it('takes each metric of an EMF line with its dimensions, as CloudWatch does', () => {
    expect(metricsOfEmfLine(emfLine({ ImagesStored: 2, ImageBytesStored: 10 }, 0))).toEqual([
      { namespace: 'PhotoCommerce', name: 'ImagesStored', dimensions: service },
      { namespace: 'PhotoCommerce', name: 'ImageBytesStored', dimensions: service },
    ]);
  });

  it('finds a read nothing emits or produces, and an emitted metric no widget shows', () => {
    const findings = compareMetrics(
      [
        read('PhotoCommerce', 'BasketsCreated', service),
        read('PhotoCommerce', 'Checkouts', service),
        read('PhotoCommerce', 'OrdersCreated', { service: 'other' }),
        read('PhotoCommerce', 'Alarmed', service, false),
        read('PhotoCommerce', 'GatewayRefusals', { ErrorType: 'THROTTLED' }),
        read('AWS/Lambda', 'Errors', { FunctionName: '@1@' }),
      ],
      [{ namespace: 'PhotoCommerce', name: 'GatewayRefusals', dimensionNames: ['ErrorType'] }],
      [emitted('BasketsCreated'), emitted('OrdersCreated'), emitted('Alarmed', service, 'webhook-deliver')],
    );
    expect(findingLines(findings)).toEqual([
      'metrics: READ BUT NEVER EMITTED PhotoCommerce Checkouts {service=photo-commerce} (widget "test")',
      'metrics: READ BUT NEVER EMITTED PhotoCommerce OrdersCreated {service=other} (widget "test")',
      'metrics: EMITTED BUT SHOWN BY NO WIDGET PhotoCommerce OrdersCreated {service=photo-commerce} (create-basket)',
      'metrics: EMITTED BUT SHOWN BY NO WIDGET PhotoCommerce Alarmed {service=photo-commerce} (webhook-deliver)',
    ]);
  });
});
