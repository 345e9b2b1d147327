/**
 * The OpenAPI document GET /openapi.json serves, as client generators read it: lint-clean (Redocly, the
 * rules of redocly.yaml), every body a named schema, every operation with its operationId, credential,
 * parameters and the errors it can answer.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { handler } from '../../functions/handlers/get-openapi.ts';
import { routes } from '../../functions/routes.ts';
import { contracts } from '../../functions/contracts/registry.ts';
import { lambdaContext } from '../../lib/local/lambda-event.ts';
import { lintOpenApi } from '../support/openapi-lint.ts';

type Json = Record<string, any>;

let document: Json;
const operation = (method: string, path: string): Json => document.paths[path][method.toLowerCase()];
const schema = (name: string): Json => document.components.schemas[name];
const refName = (node: Json): string => String(node.$ref).replace('#/components/schemas/', '');

/** Every node of a JSON tree below `node`, with its JSON pointer. */
function* walk(node: unknown, pointer: string): Generator<[Json, string]> {
  if (node === null || typeof node !== 'object') return;
  for (const [key, child] of Object.entries(node)) {
    if (child !== null && typeof child === 'object') {
      yield [child as Json, `${pointer}/${key}`];
      yield* walk(child, `${pointer}/${key}`);
    }
  }
}

beforeAll(async () => {
  const event = {
    httpMethod: 'GET',
    path: '/openapi.json',
    headers: {},
    requestContext: {},
  } as unknown as APIGatewayProxyEvent;
  const response = await handler(event, lambdaContext('get-openapi'));
  expect(response.statusCode).toBe(200);
  document = JSON.parse(response.body);
});

describe('the OpenAPI document', () => {
  it('has no lint problem (Redocly, redocly.yaml: errors and warnings alike)', async () => {
    expect(await lintOpenApi(document)).toEqual([]);
  });

  it('names every request and response body under components/schemas, and every object inside them', () => {
    // A DownloadLink's GET succeeds with a redirect: no body (checked below).
    for (const route of routes.filter((candidate) => candidate.handler !== 'follow-artwork-link')) {
      const op = operation(route.method, route.path);
      const success = op.responses['200'].content['application/json'].schema;
      expect(schema(refName(success)), `${route.handler} response`).toBeDefined();
      const json = op.requestBody?.content['application/json'];
      if (json) expect(schema(refName(json.schema)), `${route.handler} body`).toBeDefined();
    }
    // A nested object without a name would become an anonymous type in generated clients.
    for (const [name, root] of Object.entries(document.components.schemas as Json)) {
      for (const [node, pointer] of walk(root, name))
        expect(node.properties, `${pointer} is an inline object; name it`).toBeUndefined();
    }
    for (const name of [
      'Basket',
      'BasketLine',
      'Order',
      'OrderLine',
      'OrderLineDetail',
      'Checkout',
      'Project',
      'LibraryItem',
      'UploadTicket',
      'Error',
    ]) {
      expect(schema(name)?.type, name).toBe('object');
    }
    expect(schema('Basket').properties.Lines.items).toEqual({ $ref: '#/components/schemas/BasketLine' });
  });

  it('documents the wire date form on every date field', () => {
    let dates = 0;
    for (const [node, pointer] of walk(document.components.schemas, '')) {
      for (const [field, property] of Object.entries((node.properties ?? {}) as Json)) {
        if (!/Date(Utc)?$/.test(field)) continue;
        dates++;
        expect(property.pattern, `${pointer}/${field}`).toBe('^\\/Date\\(-?\\d+(?:[+-]\\d{4})?\\)\\/$');
        expect(property.description, `${pointer}/${field}`).toContain('\\/Date(<ms>)\\/');
      }
    }
    expect(dates).toBeGreaterThanOrEqual(8);
  });

  it('gives each operation a camelCase operationId from its handler and the credential of its route', () => {
    const ids = routes.map((route) => operation(route.method, route.path).operationId);
    expect(new Set(ids).size).toBe(routes.length);
    expect(operation('POST', '/basket/{basketGuid}/line').operationId).toBe('addBasketLine');
    expect(operation('POST', '/library/multi/push').operationId).toBe('pushLibraryItems');
    const expected = {
      none: [],
      user: [{ bearerToken: [] }],
      apiKey: [{ apiKey: [] }],
      library: [{ apiKey: ['library'] }],
      site: [{ apiKey: ['site'] }],
      catalog: [{ apiKey: ['catalog'] }],
      fulfilment: [{ apiKey: ['fulfilment'] }],
    };
    for (const route of routes)
      expect(operation(route.method, route.path).security, route.handler).toEqual(expected[route.credential]);
    // Each key operation names its one scope: the site's three, the catalog's two, fulfilment's one.
    const scopeOf = (method: string, path: string) => operation(method, path).security[0].apiKey;
    expect(scopeOf('GET', '/checkout/{checkoutId}')).toEqual(['site']);
    expect(scopeOf('POST', '/checkout/{checkoutId}/complete')).toEqual(['site']);
    expect(scopeOf('GET', '/builder/{token}')).toEqual(['site']);
    expect(scopeOf('PUT', '/project/{projectGuid}')).toEqual(['catalog']);
    expect(scopeOf('GET', '/project/{projectGuid}')).toEqual(['catalog']);
    expect(scopeOf('PUT', '/order/{orderGuid}/status')).toEqual(['fulfilment']);
    expect(JSON.stringify(document)).not.toContain("'internal'");
    expect(document.components.securitySchemes.apiKey.description).toMatch(/`site`.*`catalog`.*`fulfilment`/s);
    expect(document.components.securitySchemes.apiKey).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-SERVICE-API-Key',
    });
    expect(document.components.securitySchemes.bearerToken).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
  });

  it('takes an Idempotency-Key exactly on idempotent operations, and the query parameters of the contracts', () => {
    for (const route of routes) {
      const parameters = (operation(route.method, route.path).parameters ?? []) as Json[];
      const takesKey = parameters.some((parameter) => parameter.$ref === '#/components/parameters/IdempotencyKey');
      expect(takesKey, route.handler).toBe(contracts[route.handler]?.idempotent === true);
    }
    expect(document.components.parameters.IdempotencyKey).toMatchObject({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
    });
    expect(operation('GET', '/orders').parameters).toContainEqual(
      expect.objectContaining({ name: 'projectguid', in: 'query', required: false }),
    );
  });

  it('describes multipart bodies with their binary parts', () => {
    const push = operation('POST', '/library/push').requestBody.content['multipart/form-data'];
    expect(push.schema.properties.image).toMatchObject({ type: 'string', format: 'binary' });
    expect(push.schema.required).toEqual(['image']);
    expect(push.encoding.image.contentType).toBe('image/*');
    const multi = operation('POST', '/library/multi/push').requestBody.content['multipart/form-data'];
    expect(multi.schema.properties.images).toMatchObject({
      type: 'array',
      items: { type: 'string', format: 'binary' },
    });
  });

  it("gives every error response one example per code it lists, each with that code and the status's meaning", () => {
    const resolve = (response: Json): Json =>
      response.$ref ? document.components.responses[String(response.$ref).split('/').pop() as string] : response;
    for (const route of routes) {
      const responses = operation(route.method, route.path).responses as Json;
      for (const [status, reference] of Object.entries(responses)) {
        if (status.startsWith('2') || status.startsWith('3')) continue;
        const response = resolve(reference);
        const listed = /Error\.Code: (.*)\.$/.exec(response.description)?.[1]?.split(', ') ?? [];
        const examples = response.content['application/json'].examples as Json;
        expect(Object.keys(examples), `${route.handler} ${status}`).toEqual(listed);
        for (const [code, example] of Object.entries(examples)) {
          expect(example.value.Error.Code, `${route.handler} ${status}`).toBe(code);
          expect(example.value.Error.Message.length).toBeGreaterThan(10);
        }
      }
    }
    expect(
      Object.keys(resolve(operation('POST', '/basket').responses['400']).content['application/json'].examples),
    ).toEqual(
      ['ValidationFailed', 'InvalidJson', 'InvalidIdempotencyKey'].filter((code) =>
        resolve(operation('POST', '/basket').responses['400']).description.includes(code),
      ),
    );
  });

  it('lists every error status an operation can answer, each with the Error schema and its codes', () => {
    const error = schema('ErrorDetail');
    expect(schema('Error').properties.Error).toEqual({ $ref: '#/components/schemas/ErrorDetail' });
    expect(Object.keys(error.properties)).toEqual(['Code', 'Message', 'Fields', 'Failures', 'OrderGuid', 'Retryable']);
    expect(error.properties.Failures.items).toEqual({ $ref: '#/components/schemas/ItemFailure' });
    expect(Object.keys(schema('ItemFailure').properties)).toEqual(['Index', 'Code', 'Reason']);

    const resolve = (response: Json): Json =>
      response.$ref ? document.components.responses[String(response.$ref).split('/').pop() as string] : response;
    const statuses = (method: string, path: string) => Object.keys(operation(method, path).responses);
    expect(statuses('POST', '/basket/{basketGuid}/line')).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '422',
      '429',
      '500',
      '503',
      '504',
    ]);
    expect(statuses('POST', '/library/multi/pull')).toEqual([
      '200',
      '400',
      '401',
      '403',
      '409',
      '413',
      '415',
      '422',
      '429',
      '500',
      '503',
      '504',
    ]);
    expect(statuses('GET', '/health')).toEqual(['200', '413', '429', '500', '504']);
    const addLine = operation('POST', '/basket/{basketGuid}/line').responses;
    expect(addLine['400'].description).toContain(
      'ValidationFailed, InvalidJson, InvalidIdempotencyKey, UnknownProject',
    );
    expect(addLine['404'].description).toContain('BasketNotFound');
    expect(addLine['409'].description).toContain('QuantityLimitExceeded, BasketFull');
    expect(addLine['409'].headers['Retry-After']).toBeDefined();
    expect(operation('POST', '/library/multi/pull').responses['422'].description).toContain('PullRefused, PullFailed');
    const link = operation('GET', '/order/{orderGuid}/artwork/{itemGuid}').responses;
    expect(link['307'].headers.Location).toBeDefined();
    expect(link['200']).toBeUndefined();
    expect(link['403'].description).toContain('InvalidLink');
    expect(link['410'].description).toContain('LinkExpired, OrderCancelled, ArtworkErased');
    for (const route of routes) {
      for (const [status, response] of Object.entries(operation(route.method, route.path).responses as Json)) {
        if (status.startsWith('2') || status.startsWith('3')) continue;
        const answer = resolve(response);
        expect(answer.content['application/json'].schema, `${route.handler} ${status}`).toEqual({
          $ref: '#/components/schemas/Error',
        });
        if (['429', '500', '503', '504'].includes(status))
          expect(answer.headers?.['Retry-After'], `${route.handler} ${status}`).toBeDefined();
      }
    }
  });
});
