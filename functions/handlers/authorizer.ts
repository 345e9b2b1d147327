/** The Lambda REQUEST authorizer of every protected route: its answer is functions/auth/authorize.ts. */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authorize } from '../auth/authorize.ts';

export const handler = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> =>
  authorize(event);
