/** The Powertools logger: structured JSON logs with the Lambda context and correlation ids. Metrics: metrics.ts. */
import { Logger, type LogItem } from '@aws-lambda-powertools/logger';
import type { LogItemExtraInput, LogItemMessage } from '@aws-lambda-powertools/logger/types';
import { currentCorrelationId } from './correlation.ts';
import { SERVICE_NAME } from './metric-names.ts';

export const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME;

/**
 * Each line carries the correlation id of the work it is written in (shared/correlation.ts) as
 * `correlation_id`. Not `appendKeys`: that key is the invocation's, and a consumer's invocation works on
 * records of several requests, so the line takes the id of the async work that writes it.
 */
class CorrelatedLogger extends Logger {
  protected override createAndPopulateLogItem(
    logLevel: number,
    input: LogItemMessage,
    extraInput: LogItemExtraInput,
  ): LogItem {
    const item = super.createAndPopulateLogItem(logLevel, input, extraInput);
    const correlationId = currentCorrelationId();
    return correlationId === undefined ? item : item.addAttributes({ correlation_id: correlationId });
  }
}

export const logger: Logger = new CorrelatedLogger({ serviceName });
