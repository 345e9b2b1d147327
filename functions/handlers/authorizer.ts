/**
 * The Lambda REQUEST authorizer of every protected route: its answer is functions/auth/authorize.ts. Its
 * lines carry the id of the request it judges (`requestContext.requestId`) as `correlation_id`.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authorize } from '../auth/authorize.ts';
import { withCorrelationId } from '../shared/correlation.ts';

export const handler = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> =>
  withCorrelationId(event.requestContext?.requestId, () => authorize(event));
