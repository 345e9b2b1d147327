/** Powertools singletons: structured JSON logs with correlation ids, and embedded-metric-format metrics. */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE, SERVICE_NAME } from './metric-names.ts';

export const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME;

export const logger = new Logger({ serviceName });

export const metrics = new Metrics({
  serviceName,
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? METRICS_NAMESPACE,
  // Its only warning is "no metrics to publish" on every read request: noise for operators, so errors only.
  logger: logger.createChild({ logLevel: 'ERROR' }),
});
