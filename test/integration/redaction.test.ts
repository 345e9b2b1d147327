/**
 * Secrets never reach the logs and failures reveal nothing internal. Every log line the service writes
 * (Powertools logger and the local front) is captured at DEBUG level, with event logging requested by
 * the environment, while requests carry valid and invalid tokens and keys; then a storage failure is
 * forced and its 500 answer is checked for stack traces and internal names.
 */
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.ts';
import { LOCAL_AUDIENCE, LOCAL_ISSUER } from '../../lib/local/signing-keys.ts';

// Before any service module loads (hence the dynamic imports below): log everything, and ask for event
// logging the way an operator would. The HTTP layer must refuse the latter: events hold credentials.
process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
process.env.POWERTOOLS_LOGGER_LOG_EVENT = 'true';

let service: TestService;
const captured: string[] = [];
const restore: (() => void)[] = [];

function capture(stream: NodeJS.WriteStream): void {
  const original = stream.write.bind(stream);
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof stream.write;
  restore.push(() => {
    stream.write = original;
  });
}

const FAILING_USER = 'forced-failure-user';
const INTERNAL_DETAIL = 'Table photo-commerce-internal not reachable at /var/task/functions/store/basket-store.ts:42';

beforeAll(async () => {
  const { startTestService } = await import('../support/service.ts');
  service = await startTestService();
  // Imported only now: the SDK clients read the local endpoints from the environment when first loaded.
  const { dynamoDbClient } = await import('../../functions/shared/clients/dynamodb.ts');
  // Storage fails for one user only, with an error whose text names internals.
  dynamoDbClient.middlewareStack.add(
    (next) => async (args) => {
      if (JSON.stringify((args as { input?: unknown }).input ?? {}).includes(FAILING_USER)) {
        const error = new Error(INTERNAL_DETAIL);
        error.name = 'ResourceNotFoundException';
        throw error;
      }
      return next(args);
    },
    { step: 'initialize', name: 'forcedFailure' },
  );
  capture(process.stdout);
  capture(process.stderr);
});
afterAll(async () => {
  for (const undo of restore) undo();
  await service?.close();
});

describe('logs and error answers', () => {
  it('never writes a token or an API key to the logs', async () => {
    const valid = await service.token('redaction-alice');
    const expired = await service.token('redaction-alice', { ttlSeconds: -600 });
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'local-1' })
      .setSubject('redaction-alice')
      .setIssuer(LOCAL_ISSUER)
      .setAudience(LOCAL_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    const failing = await service.token(FAILING_USER);
    const catalogKey = await service.apiKey('redaction', 'catalog');
    const unknownKey = '11111111-2222-4333-8444-555555555555';

    const answers = [
      await service.request('GET', '/baskets', { token: valid }),
      await service.request('POST', '/basket', { token: valid, headers: { 'Idempotency-Key': 'redaction-key' } }),
      await service.request('GET', '/baskets', { token: expired }),
      await service.request('GET', '/baskets', { token: forged }),
      await service.request('GET', '/baskets', { token: failing }),
      await service.request('GET', `/project/${'0'.repeat(32)}`, { apiKey: catalogKey }),
      await service.request('GET', `/project/${'0'.repeat(32)}`, { apiKey: unknownKey }),
      await service.request('GET', '/baskets', { apiKey: catalogKey }),
      await service.request('POST', `/basket/${'0'.repeat(32)}/line`, {
        token: valid,
        body: '{"ProjectGuid":',
        headers: { 'Content-Type': 'application/json' },
      }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 401, 401, 500, 404, 401, 403, 400]);

    const logs = captured.join('');
    // The capture works and is at DEBUG: refusals and the failure are logged...
    expect(logs).toContain('request refused');
    expect(logs).toContain('request failed');
    // ...without any secret, whole or in part (a JWT's signature is its last segment).
    for (const secret of [valid, expired, forged, failing, catalogKey, unknownKey]) {
      expect(logs).not.toContain(secret);
      expect(logs).not.toContain(secret.split('.').at(-1));
    }
    expect(logs).not.toMatch(/bearer\s+[\w-]{8,}/i);
    expect(logs.toLowerCase()).not.toContain('x-service-api-key');
    expect(logs.toLowerCase()).not.toContain('"authorization"');
  });

  it('answers an unexpected failure with a generic 500: no stack, no internal names', async () => {
    const response = await service.request('GET', '/baskets', { token: await service.token(FAILING_USER) });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({
      Error: {
        Code: 'InternalError',
        Message: 'The request could not be completed. It is safe to retry.',
        Retryable: true,
      },
    });
    for (const leak of [
      'ResourceNotFoundException',
      'photo-commerce-internal',
      '/var/task',
      'basket-store',
      '.ts',
      '    at ',
      'stack',
    ]) {
      expect(response.text).not.toContain(leak);
      expect([...response.headers.values()].join(' ')).not.toContain(leak);
    }
    // Operators still get the detail, in the log only.
    expect(captured.join('')).toContain('ResourceNotFoundException');
  });

  it('answers refusals without internal detail either', async () => {
    const unauthorized = await service.request('GET', '/baskets', { token: 'not.a.jwt' });
    expect(unauthorized.body).toEqual({
      Error: { Code: 'Unauthorized', Message: 'The bearer token is not a well-formed JWT.' },
    });
    const notFound = await service.request('GET', '/no/such/route');
    expect(notFound.status).toBe(404);
    expect(notFound.text).not.toMatch(/functions\/|\.ts\b|at \w+ \(/);
  });
});
