/**
 * A route's handler invoked directly with the event API Gateway would hand it after a given authorizer
 * answer: for tests of what a handler does with an authorizer context the front would never build (a refusal,
 * a forged scope). Every path parameter is one valid guid.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { Route } from '../../functions/routes.ts';
import { lambdaContext } from '../../lib/local/lambda-event.ts';

const GUID = '0123456789abcdef0123456789abcdef';

export async function invokeRoute(
  route: Route,
  authorizer: Record<string, string>,
  body: string,
): Promise<{ statusCode: number; body: string }> {
  const { handler } = (await import(`../../functions/handlers/${route.handler}.ts`)) as {
    handler: (event: APIGatewayProxyEvent, context: Context) => Promise<{ statusCode: number; body: string }>;
  };
  const event = {
    resource: route.path,
    path: route.path,
    httpMethod: route.method,
    headers: { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: Object.fromEntries([...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name, GUID])),
    stageVariables: null,
    requestContext: { requestId: 'direct', authorizer },
    body,
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEvent;
  return handler(event, lambdaContext(route.handler));
}
