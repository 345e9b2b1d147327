/**
 * The local front's early answers (401, 403, 404, 405, and 413 for a body over the limit) reach the
 * client as the JSON error even while the client is still sending a large body, as they do from API
 * Gateway: never as a connection reset. Each path is hit repeatedly with a 7 MB body, with Node's fetch
 * and with a raw http.request (which writes the whole body whatever the server does).
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

const BODY = Buffer.alloc(7 * 1024 * 1024, 'a');
const ROUNDS = 10;
const guid = '0123456789abcdef0123456789abcdef';

let service: TestService;
let token: string;
beforeAll(async () => {
  service = await startTestService();
  token = await service.token('front-refusals');
});
afterAll(() => service?.close());

interface Case {
  status: number;
  code: string;
  method: string;
  path: string;
  headers: () => Record<string, string>;
}

const cases: Case[] = [
  { status: 401, code: 'Unauthorized', method: 'POST', path: `/basket/${guid}/line`, headers: () => ({}) },
  {
    status: 403,
    code: 'Forbidden',
    method: 'POST',
    path: '/library/pull',
    headers: () => ({ Authorization: `Bearer ${token}` }),
  },
  { status: 404, code: 'RouteNotFound', method: 'POST', path: '/nowhere', headers: () => ({}) },
  { status: 405, code: 'MethodNotAllowed', method: 'PUT', path: '/baskets', headers: () => ({}) },
  {
    status: 413,
    code: 'PayloadTooLarge',
    method: 'POST',
    path: `/basket/${guid}/line`,
    headers: () => ({ Authorization: `Bearer ${token}` }),
  },
];

/** Sends the whole body with http.request and resolves with the answer, or with the transport error. */
function rawRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string } | { error: string }> {
  const url = new URL(path, service.url);
  return new Promise((resolve) => {
    const request = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method,
      headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': BODY.length },
    });
    request.once('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      response.once('error', (error) =>
        resolve({ error: `${(error as NodeJS.ErrnoException).code ?? error.message} (response)` }),
      );
    });
    request.once('error', (error) => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }));
    request.end(BODY);
  });
}

async function fetchRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string } | { error: string }> {
  try {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: BODY,
    });
    return { status: response.status, body: await response.text() };
  } catch (error) {
    const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
    return { error: cause?.code ?? cause?.message ?? (error as Error).message };
  }
}

describe('early answers to a 7 MB body arrive whole', () => {
  for (const client of [
    { name: 'fetch', send: fetchRequest },
    { name: 'http.request', send: rawRequest },
  ]) {
    for (const entry of cases) {
      it(`${entry.status} ${entry.code} (${entry.method} ${entry.path}) with ${client.name}, ${ROUNDS} times`, async () => {
        const answers: string[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          const answer = await client.send(entry.method, entry.path, entry.headers());
          answers.push(
            'error' in answer
              ? `transport error ${answer.error}`
              : `${answer.status} ${JSON.parse(answer.body || '{}')?.Error?.Code}`,
          );
        }
        expect(answers).toEqual(Array.from({ length: ROUNDS }, () => `${entry.status} ${entry.code}`));
      }, 120_000);
    }
  }
});
