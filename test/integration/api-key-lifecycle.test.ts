/**
 * API key lifecycle through the CLI while the service runs on the same DATA_DIR: create, list, use,
 * revoke. Locally the authorizer has no cache, so a revoked key is refused at once; in AWS it is refused
 * once API Gateway's cached authorizer result for it expires (AUTHORIZER_CACHE_SECONDS, 300 s).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.ts';
import { temporaryDataDir } from '../support/data-dir.ts';

const dataDir = temporaryDataDir('photo-commerce-keys-');
/** `npm run -s api-key -- ...` on the service's DATA_DIR. */
const apiKeyCli = (...args: string[]) => dataDir.cli('bin/api-key.ts', ...args);

const parseList = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [name, scope, keyId, createdAt] = line.split('\t');
      return { name, scope, keyId, createdAt };
    });

let service: TestService;
beforeAll(async () => {
  service = await dataDir.start();
});
afterAll(() => dataDir.remove());

describe('API keys from the CLI', () => {
  it('creates, lists, uses and revokes a key; the revoked key is refused at once', async () => {
    const created = await apiKeyCli('--name', 'mobile-app', '--scope', 'library');
    expect(created.code).toBe(0);
    const libraryKey = created.stdout.trim();
    expect(libraryKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const catalogKey = (await apiKeyCli('--name', 'pricing-system', '--scope', 'catalog')).stdout.trim();

    const listing = (await apiKeyCli('--list')).stdout;
    expect(parseList(listing)).toEqual(
      expect.arrayContaining([
        {
          name: 'mobile-app',
          scope: 'library',
          keyId: expect.stringMatching(/^[0-9a-f]{12}$/),
          createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
        expect.objectContaining({ name: 'pricing-system', scope: 'catalog' }),
      ]),
    );
    // The list never shows a key itself: only its name, scope, id (a hash prefix) and creation time.
    expect(listing).not.toContain(libraryKey);
    expect(listing).not.toContain(catalogKey);

    const project = `/project/${'1'.repeat(32)}`;
    expect((await service.request('GET', project, { apiKey: catalogKey })).status).toBe(404);

    const revoked = await apiKeyCli('--revoke', 'pricing-system');
    expect(revoked.code).toBe(0);
    expect(revoked.stderr).toContain('revoked pricing-system; disabled 0 webhooks');
    const refused = await service.request('GET', project, { apiKey: catalogKey });
    expect(refused.status).toBe(401);
    expect(refused.body.Error.Code).toBe('Unauthorized');
    const remaining = parseList((await apiKeyCli('--list')).stdout).map((key) => key.name);
    expect(remaining).not.toContain('pricing-system');

    // Other keys are untouched; the name is free again and a new key under it is a different key.
    expect(remaining).toContain('mobile-app');
    const reissued = (await apiKeyCli('--name', 'pricing-system', '--scope', 'catalog')).stdout.trim();
    expect(reissued).not.toBe(catalogKey);
    expect((await service.request('GET', project, { apiKey: reissued })).status).toBe(404);
    expect((await service.request('GET', project, { apiKey: catalogKey })).status).toBe(401);
  }, 90_000);

  it('refuses to revoke an unknown name or to reuse a live name, and explains its usage', async () => {
    const unknown = await apiKeyCli('--revoke', 'no-such-key');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no API key named "no-such-key"');
    await apiKeyCli('--name', 'twice', '--scope', 'library');
    const duplicate = await apiKeyCli('--name', 'twice', '--scope', 'library');
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('exists already');
    const usage = await apiKeyCli('--name', 'x', '--scope', 'admin');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Unknown scope "admin"');
    expect(usage.stderr).toContain('usage:');
    expect((await apiKeyCli('--name', 'x')).stderr).toContain('usage:');
  }, 60_000);

  it('refuses the retired scope `internal` with the scopes that replace it, and creates nothing', async () => {
    const refused = await apiKeyCli('--name', 'old-habit', '--scope', 'internal');
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('"internal" no longer exists');
    for (const scope of ['library', 'site', 'catalog', 'fulfilment'])
      expect(refused.stderr).toMatch(new RegExp(`^  ${scope} +\\S`, 'm'));
    expect(parseList((await apiKeyCli('--list')).stdout).map((key) => key.name)).not.toContain('old-habit');
  }, 60_000);

  it('refuses `internal` in the deployed stack CLI too, before it touches any table', async () => {
    const refused = await dataDir.cli(
      'bin/aws-api-key.ts',
      '--table',
      'no-such-table',
      '--usage-plan',
      'plan',
      '--name',
      'old-habit',
      '--scope',
      'internal',
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('"internal" no longer exists');
    expect(refused.stderr).toMatch(/^  fulfilment +order processing/m);
  }, 60_000);
});
