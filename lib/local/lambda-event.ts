/**
 * The parts of the proxy event and Lambda context that the local front builds as API Gateway and Lambda do:
 * header and query maps (single and multi value), whether a body travels base64, and the context object.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Context } from 'aws-lambda';

/** The account and region the local front and its Lambda contexts name. */
export const ACCOUNT = '000000000000';
export const REGION = 'local';

/**
 * Single- and multi-value maps as API Gateway builds them (the last value wins in the single map). Built
 * as own properties: a client's `__proto__` or `constructor` is an ordinary name in API Gateway's JSON event.
 */
function collect(pairs: Iterable<[string, string]>) {
  const multi = new Map<string, string[]>();
  for (const [name, value] of pairs) multi.set(name, [...(multi.get(name) ?? []), value]);
  return {
    single: Object.fromEntries(
      [...multi].map(([name, values]) => [name, values[values.length - 1] as string]),
    ) as Record<string, string>,
    multi: Object.fromEntries(multi) as Record<string, string[]>,
  };
}

export function headersOf(request: IncomingMessage) {
  const pairs: [string, string][] = [];
  for (let i = 0; i < request.rawHeaders.length; i += 2)
    pairs.push([request.rawHeaders[i] as string, request.rawHeaders[i + 1] as string]);
  const { single, multi } = collect(pairs);
  return { headers: single, multiValueHeaders: multi };
}

export function queryOf(url: URL) {
  const { single, multi } = collect(url.searchParams);
  return Object.keys(single).length > 0 ? { single, multi } : { single: null, multi: null };
}

export function isBinary(contentType: string | undefined, binaryMediaTypes: readonly string[]): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return binaryMediaTypes.some((pattern) =>
    pattern.endsWith('/*') ? type.startsWith(pattern.slice(0, -1)) : type === pattern,
  );
}

export function lambdaContext(functionName: string, timeoutMs = 29_000): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}
