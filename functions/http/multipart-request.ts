/** The multipart body of an API Gateway request as the push service takes it: raw, with its content type. */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { MultipartRequest } from '../services/push-service.ts';

export const multipartRequestOf = (request: {
  event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>;
  headers: Record<string, string | undefined>;
}): MultipartRequest => ({
  body: request.event.body,
  isBase64Encoded: request.event.isBase64Encoded,
  contentType: request.headers['content-type'],
});
