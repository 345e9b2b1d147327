/**
 * The local stack as a developer uses it: `npm start` on a data directory that survives a restart, the
 * token, API-key and seed CLIs working while it runs, and the OpenAPI document covering every route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.ts';
import { temporaryDataDir } from '../support/data-dir.ts';
import { routes } from '../../functions/routes.ts';
import { contracts } from '../../functions/contracts/registry.ts';

const dataDir = temporaryDataDir('photo-commerce-local-');
const cli = async (script: string, ...args: string[]) => {
  const { code, stdout, stderr } = await dataDir.cli(script, ...args);
  if (code !== 0) throw new Error(`${script} exited ${code}: ${stderr}`);
  return stdout.trim();
};

let service: TestService;
beforeAll(async () => {
  service = await dataDir.start();
});
afterAll(() => dataDir.remove());

describe('local stack', () => {
  it('answers /health without credentials', async () => {
    const response = await service.request('GET', '/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ Status: 'ok' });
  });

  it('lets the CLIs mint a token, create a key and seed projects while the service runs', async () => {
    const token = await cli('bin/token.ts', '--user', 'carol');
    expect(token.split('.')).toHaveLength(3);
    const key = await cli('bin/api-key.ts', '--name', 'pricing-system', '--scope', 'catalog');
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const seeded = (await cli('bin/seed.ts')).split('\n').map((line) => line.split('\t')[0]);
    expect(seeded).toHaveLength(3);

    const project = await service.request('GET', `/project/${seeded[0]}`, { apiKey: key });
    expect(project.status).toBe(200);
    expect(project.body).toMatchObject({ UnitPrice: 29.99, Name: 'Photo book A4, 24 pages' });
    const baskets = await service.request('GET', '/baskets', { token });
    expect(baskets.status).toBe(200);
  });

  it('keeps data across a restart on the same data directory', async () => {
    const token = await service.token('dave');
    const created = await service.request('POST', '/basket', { token });
    const ports = {
      dynamoPort: Number(new URL(service.storage.dynamoEndpoint).port),
      s3Port: Number(new URL(service.storage.s3Endpoint).port),
    };
    await service.close();
    // Same ports: the handler modules of this process keep the SDK clients they were loaded with, as in Lambda.
    service = await dataDir.start(ports);
    const read = await service.request('GET', `/basket/${created.body.Guid}`, { token: await service.token('dave') });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it('treats an expired basket as missing before DynamoDB TTL removes it', async () => {
    const { createBasketAction, getBasket } = await import('../../functions/store/basket-store.ts');
    const { transact } = await import('../../functions/store/transaction.ts');
    const { newBasket } = await import('../../functions/domain/basket.ts');
    const basket = newBasket('e'.repeat(32), 'erin', { now: Date.now() - 61 * 86_400_000, ttlMs: 60 * 86_400_000 });
    await transact([createBasketAction(basket)]);
    expect(await getBasket('erin', basket.guid, basket.expiresAt - 1)).toBeDefined();
    const token = await service.token('erin');
    expect((await service.request('GET', `/basket/${basket.guid}`, { token })).status).toBe(404);
    const list = await service.request('GET', '/baskets', { token });
    expect(list.body.Baskets).toEqual([]);
  });

  it('serves an OpenAPI 3.1 document with every route and a contract for each', async () => {
    for (const route of routes) expect(contracts[route.handler], `contract for ${route.handler}`).toBeDefined();
    const response = await service.request('GET', '/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    for (const route of routes)
      expect(
        response.body.paths[route.path]?.[route.method.toLowerCase()],
        `${route.method} ${route.path}`,
      ).toBeDefined();
    const addLine = response.body.paths['/basket/{basketGuid}/line'].post;
    expect(addLine.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/LineInput' });
    expect(response.body.components.schemas.LineInput.required).toEqual(['ProjectGuid', 'Quantity']);
  });
});
