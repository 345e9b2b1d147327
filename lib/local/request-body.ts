/**
 * Reading a request's body in the local front: whole, up to API Gateway's payload limit, or read and
 * thrown away before an answer that does not need it.
 */
import type { IncomingMessage } from 'node:http';
import { payloadTooLarge } from '../../functions/shared/errors.ts';

/** The body, or a 413 once it passes `limit` (the rest is left to `discardBody`, never cut off with a reset). */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else {
        request.off('data', onData);
        reject(payloadTooLarge(`The request body is over ${limit} bytes, API Gateway's limit for this API.`));
      }
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks)));
    request.once('error', reject);
  });
}

/**
 * Reads and throws away what the client is still sending, up to `limit` bytes, before an answer given
 * without the body (401, 403, 404, 405, 413). Answering and closing while the client still writes makes
 * its TCP stack see a reset instead of the answer; API Gateway reads the body first too. False when the
 * body went past the limit (the connection is then closed after the answer).
 */
export function discardBody(request: IncomingMessage, limit: number): Promise<boolean> {
  if (request.complete) return Promise.resolve(true);
  return new Promise((resolve) => {
    let discarded = 0;
    const finish = (whole: boolean) => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('close', onClose);
      resolve(whole);
    };
    const onData = (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > limit) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(request.complete);
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('close', onClose);
    request.resume();
  });
}
