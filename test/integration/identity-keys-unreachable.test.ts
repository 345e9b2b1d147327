/**
 * The issuer's keys out of reach: a bearer token the authorizer cannot check is refused 401 with the
 * sentence that says to retry, and counted (IdentityKeysUnreachable, which an alarm reads).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { metricLogDir, readMetricLog } from '../../lib/local/metric-log.ts';
import { startTestService, type TestService } from '../support/service.ts';

// Read when the authorizer first verifies a token: a loopback port nothing listens on, so fetching the keys fails at once.
process.env.JWT_JWKS_URL = 'https://127.0.0.1:9/.well-known/jwks.json';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
}, 60_000);
afterAll(async () => {
  await service?.close();
});

it('refuses the token as unverifiable, and the authorizer counts it', async () => {
  const refused = await service.request('POST', '/basket', { token: await service.token('keys-unreachable') });
  expect(refused.status).toBe(401);
  expect(refused.body.Error.Message).toBe(
    "The bearer token could not be checked now (the issuer's keys are out of reach); retry shortly.",
  );
  const dir = metricLogDir();
  expect(dir).toBeDefined();
  expect(readMetricLog(dir!)).toContainEqual({
    namespace: 'PhotoCommerce',
    name: 'IdentityKeysUnreachable',
    dimensions: { service: 'photo-commerce' },
    function: 'authorizer',
  });
});
