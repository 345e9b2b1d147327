/**
 * The committed client/src/generated/api.ts is what the generator makes of today's OpenAPI document, and the
 * generator reads documents that name their schemas (`$ref: '#/components/schemas/X'`) as well as inline ones.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../functions/contracts/openapi.ts';
import { GENERATED_FILE, generateApiSource, renderApiFile } from '../scripts/generate.ts';
import { operations } from '../src/generated/api.ts';
import { routes } from '../../functions/routes.ts';

describe('generated client types', () => {
  it('are up to date with the OpenAPI document (run `npm run generate -w client` when this fails)', async () => {
    expect(readFileSync(GENERATED_FILE, 'utf8')).toBe(await renderApiFile(buildOpenApi()));
  });

  it('describe every route of the route table, with its idempotency from the contracts', () => {
    expect(
      Object.values(operations)
        .map((operation) => `${operation.method} ${operation.path}`)
        .sort(),
    ).toEqual(routes.map((route) => `${route.method} ${route.path}`).sort());
    expect(operations.createBasket).toMatchObject({ idempotent: true, credential: 'bearer' });
    expect(operations.pushLibraryItems).toMatchObject({ idempotent: true, credential: 'apiKey', body: 'multipart' });
    expect(operations.getHealth).toMatchObject({ idempotent: false, credential: 'none' });
  });

  it('follow $refs to named schemas, parameters and responses, finding dates through them', () => {
    const date = { type: 'string', pattern: '^\\/Date\\(-?\\d+(?:[+-]\\d{4})?\\)\\/$' };
    const source = generateApiSource({
      openapi: '3.1.0',
      info: { title: 'T', version: '1' },
      paths: {
        '/basket/{basketGuid}': {
          get: {
            operationId: 'getBasket',
            security: [{ bearerToken: [] }],
            parameters: [
              { $ref: '#/components/parameters/BasketGuid' },
              { name: 'limit', in: 'query', schema: { type: 'string', pattern: '^[1-9]\\d{0,3}$' } },
              { name: 'cursor', in: 'query', schema: { type: 'string' } },
            ],
            responses: {
              '200': { $ref: '#/components/responses/BasketAnswer' },
              '4XX': {
                description: 'no',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
              },
            },
          },
        },
      },
      components: {
        parameters: { BasketGuid: { name: 'basketGuid', in: 'path', required: true, schema: { type: 'string' } } },
        responses: {
          BasketAnswer: {
            description: 'ok',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Basket' } } },
          },
        },
        schemas: {
          WireDate: date,
          BasketLine: {
            type: 'object',
            properties: { Id: { type: 'integer' }, AddedDateUtc: { $ref: '#/components/schemas/WireDate' } },
            required: ['Id'],
            additionalProperties: false,
          },
          Basket: {
            type: 'object',
            properties: {
              Lines: { type: 'array', items: { $ref: '#/components/schemas/BasketLine' } },
              CreatedDateUtc: date,
            },
            required: ['Lines', 'CreatedDateUtc'],
            additionalProperties: false,
          },
          Error: {
            type: 'object',
            properties: {
              Error: { type: 'object', properties: { Code: { type: 'string' } }, additionalProperties: {} },
            },
            required: ['Error'],
          },
        },
        securitySchemes: {
          bearerToken: { type: 'http', scheme: 'bearer' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-SERVICE-API-Key' },
        },
      },
    });
    expect(source).toContain('response: Schemas["Basket"];');
    expect(source).toContain('Lines: Array<Schemas["BasketLine"]>;');
    expect(source).toContain('WireDate: Date;');
    expect(source).toContain('export type Basket = Schemas["Basket"];');
    expect(source).not.toContain('export type Error ='); // would shadow the global Error in consumers
    expect(source).toContain('basketGuid: string;');
    expect(source).toContain('limit?: number | string;');
    expect(source).toContain('cursor?: string;');
    expect(source).toContain(
      `getBasket: { method: 'GET', path: '/basket/{basketGuid}', credential: 'bearer', idempotent: false, body: 'none', dates: [["Lines","*","AddedDateUtc"],["CreatedDateUtc"]] }`,
    );
  });
});
