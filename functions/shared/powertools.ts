/** The Powertools logger: structured JSON logs with the Lambda context and correlation ids. Metrics: metrics.ts. */
import { Logger } from '@aws-lambda-powertools/logger';
import { SERVICE_NAME } from './metric-names.ts';

export const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME;

export const logger = new Logger({ serviceName });
