/**
 * The upload page's way to the service: `/upload/api/<path>` is forwarded to the service's `<path>` with
 * the site's library API key, for the resumable upload calls and a builder link over several items only.
 * The key stays on this server (a library key is a secret of the app that holds it); whatever key the
 * browser sends is dropped.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const UPLOAD_API_PREFIX = '/upload/api';

const GUID = '[0-9a-fA-F]{32}';
const ALLOWED: readonly [string, RegExp][] = [
  ['POST', /^\/library\/uploads$/],
  ['POST', new RegExp(`^/library/uploads/${GUID}/(parts|complete)$`)],
  ['GET', new RegExp(`^/library/uploads/${GUID}$`)],
  ['DELETE', new RegExp(`^/library/uploads/${GUID}$`)],
  ['POST', /^\/library\/builder$/],
];

/** A complete call names at most 10,000 parts: well under this. */
const MAX_BODY_BYTES = 2 * 1024 * 1024;

async function bodyOf(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function answer(response: ServerResponse, status: number, code: string, message: string): void {
  response.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  response.end(JSON.stringify({ Error: { Code: code, Message: message } }));
}

/** Forwards one upload call; answers 404 for any other path, as the service would not have it here. */
export async function forwardUploadCall(
  serviceUrl: string,
  libraryApiKey: string,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
): Promise<void> {
  const method = request.method ?? 'GET';
  if (!ALLOWED.some(([allowed, pattern]) => allowed === method && pattern.test(path)))
    return answer(response, 404, 'NotFound', 'Not an upload call.');
  const body = method === 'GET' || method === 'DELETE' ? undefined : await bodyOf(request);
  if (method === 'POST' && body === undefined)
    return answer(response, 413, 'PayloadTooLarge', 'The request is too large.');
  let forwarded: Response;
  try {
    forwarded = await fetch(`${serviceUrl.replace(/\/+$/, '')}${path}`, {
      method,
      headers: {
        Accept: 'application/json',
        'Content-Type': 'application/json',
        'X-SERVICE-API-Key': libraryApiKey,
      },
      ...(body !== undefined ? { body } : {}),
      redirect: 'error',
    });
  } catch (error) {
    return answer(response, 502, 'Unreachable', `The service did not answer: ${(error as Error).message}`);
  }
  const headers: Record<string, string> = {
    'Content-Type': forwarded.headers.get('content-type') ?? 'application/json',
    'Cache-Control': 'no-store',
  };
  const retryAfter = forwarded.headers.get('retry-after');
  if (retryAfter !== null) headers['Retry-After'] = retryAfter;
  response.writeHead(forwarded.status, headers);
  response.end(Buffer.from(await forwarded.arrayBuffer()));
}
