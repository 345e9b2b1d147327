/**
 * Builds the OpenAPI 3.1 document from the route table and the zod contracts (JSON Schema 2020-12). Every
 * request and response body is a named schema under `components/schemas` (the names the contract modules
 * give with `nameSchemas`; a body nobody named gets `<OperationId>Request` / `Response`), so that client
 * generators produce one type per schema rather than one per operation.
 */
import * as z from 'zod/mini';
import { routes, type Credential, type Route } from '../routes.ts';
import { contracts, type RouteContract } from './registry.ts';
import { requestSchemas, responseSchemas } from './common.ts';
import { errorComponents, errorResponsesOf } from './openapi-errors.ts';
import { mergeSchemas, namedSchemas, refTo, schemaOf, type JsonSchema } from './openapi-schemas.ts';
import { credentialText, tagOf, tags } from './openapi-tags.ts';
import { webhooksOf } from './openapi-webhooks.ts';
// The error schemas are named there; only this document needs them.
import './error.ts';

/** `get-basket` → `getBasket`: stable, and what client generators name their methods after. */
export const operationIdOf = (handler: string): string =>
  handler.replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

const pascal = (handler: string): string => operationIdOf(handler).replace(/^[a-z]/, (letter) => letter.toUpperCase());

const security: Record<Credential, Record<string, string[]>[]> = {
  none: [],
  user: [{ bearerToken: [] }],
  apiKey: [{ apiKey: [] }],
  library: [{ apiKey: ['library'] }],
  site: [{ apiKey: ['site'] }],
  catalog: [{ apiKey: ['catalog'] }],
  fulfilment: [{ apiKey: ['fulfilment'] }],
};

/** Answers of no operation: the path or method is not one of the document's, or the request is not HTTP. */
const ANSWERS_OF_NO_OPERATION =
  'A path the document does not list answers 404 `RouteNotFound`; a method a listed path does not have answers 405 `MethodNotAllowed` ' +
  "from `npm start`'s front and 404 `RouteNotFound` from API Gateway. A request that front cannot parse as HTTP answers 400 " +
  '`MalformedRequest`, one with headers over 16 KiB 431 `RequestHeaderFieldsTooLarge` (in AWS the edge in front of API Gateway refuses them).';

/** A multipart body: each file part a binary string, sent with an image content type. */
function multipartBody(contentType: string, parts: NonNullable<RouteContract['fileParts']>) {
  const names = Object.keys(parts);
  const file = { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' };
  const properties = Object.fromEntries(
    Object.entries(parts).map(([name, { description, repeated }]) => [
      name,
      repeated ? { type: 'array', items: file, minItems: 1, description } : { ...file, description },
    ]),
  );
  return {
    required: true,
    content: {
      [contentType]: {
        schema: { type: 'object', properties, required: names },
        encoding: Object.fromEntries(names.map((name) => [name, { contentType: 'image/*' }])),
      },
    },
  };
}

function parametersOf(contract: RouteContract) {
  const pathSchema = contract.path
    ? (schemaOf(contract.path, 'input') as { properties?: Record<string, JsonSchema> })
    : undefined;
  const querySchema = contract.query
    ? (schemaOf(contract.query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] })
    : undefined;
  const parameter = (
    name: string,
    where: 'path' | 'query',
    required: boolean,
    { description, ...schema }: JsonSchema,
  ) => ({
    name,
    in: where,
    required,
    ...(typeof description === 'string' ? { description } : {}),
    schema,
  });
  return [
    ...Object.entries(pathSchema?.properties ?? {}).map(([name, schema]) => parameter(name, 'path', true, schema)),
    ...Object.entries(querySchema?.properties ?? {}).map(([name, schema]) =>
      parameter(name, 'query', querySchema?.required?.includes(name) ?? false, schema),
    ),
    ...(contract.idempotent ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
  ];
}

function operationOf(route: Route, unnamed: { input: Map<z.ZodMiniType, string>; output: Map<z.ZodMiniType, string> }) {
  const contract = contracts[route.handler] ?? {};
  const operationId = operationIdOf(route.handler);
  const parameters = parametersOf(contract);
  const requestBody = contract.body
    ? {
        required: true,
        content: {
          'application/json': {
            schema: refTo(contract.body, requestSchemas, unnamed.input, `${pascal(route.handler)}Request`),
          },
        },
      }
    : contract.requestContentType
      ? multipartBody(contract.requestContentType, contract.fileParts ?? {})
      : undefined;
  const success = contract.response
    ? refTo(contract.response, responseSchemas, unnamed.output, `${pascal(route.handler)}Response`)
    : {};
  return {
    operationId,
    summary: route.summary,
    description: `Credential: ${credentialText(route.credential)}.`,
    tags: [tagOf(route)],
    security: security[route.credential],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: {
      ...(contract.redirect
        ? {
            '307': {
              description: contract.redirect,
              headers: { Location: { description: 'Where to GET', schema: { type: 'string', format: 'uri' } } },
            },
          }
        : {
            '200': {
              description: 'Success',
              ...(contract.idempotent
                ? { headers: { 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } } }
                : {}),
              content: { 'application/json': { schema: success } },
            },
          }),
      ...(contract.accepted
        ? {
            '202': {
              description: 'Accepted: done later',
              content: {
                'application/json': {
                  schema: refTo(contract.accepted, responseSchemas, unnamed.output, `${pascal(route.handler)}Accepted`),
                },
              },
            },
          }
        : {}),
      ...errorResponsesOf(route, contract),
    },
  };
}

const METHOD_ORDER = ['GET', 'PUT', 'POST', 'DELETE'];

export function buildOpenApi(): Record<string, unknown> {
  const unnamed = { input: new Map<z.ZodMiniType, string>(), output: new Map<z.ZodMiniType, string>() };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) paths[route.path] ??= {};
  // Methods in the order OpenAPI lists them, whatever the route table's order.
  const byMethod = [...routes].sort((a, b) => METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method));
  for (const route of byMethod) paths[route.path]![route.method.toLowerCase()] = operationOf(route, unnamed);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Photo commerce basket, order and library service',
      version: '1.0.0',
      // Markdown: the date form is a code span, so that the renderer shows `<ms>` rather than reading it as a tag.
      description:
        'Baskets, checkouts, orders and an image library for a photo-product business. Fields are PascalCase, guids 32 hexadecimal characters, ' +
        'dates strings of the form `"\\/Date(<ms>)\\/"` (milliseconds since 1970-01-01T00:00:00Z), money JSON numbers. ' +
        'A JSON body is read as JSON whatever its Content-Type says. ' +
        'Every error answers `{"Error":{"Code","Message",...}}` (the Error schema). ' +
        ANSWERS_OF_NO_OPERATION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    // Relative to this document's own URL, so one document serves every stage, custom domain and `npm start`.
    servers: [{ url: '.', description: 'The API this document is served by (<base>/openapi.json)' }],
    tags,
    paths,
    webhooks: webhooksOf(),
    components: {
      schemas: mergeSchemas(
        namedSchemas('input', requestSchemas, unnamed.input),
        namedSchemas('output', responseSchemas, unnamed.output),
      ),
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'A retry with the same key (same caller, route and request) within 24 h answers the first result and creates nothing new; send a new key (a UUID) per new request.',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
        },
      },
      responses: errorComponents.responses,
      headers: {
        ...errorComponents.headers,
        IdempotentReplayed: {
          description:
            '"true" when this answer is the stored result of an earlier request with the same Idempotency-Key (nothing new was created).',
          schema: { type: 'string', enum: ['true'] },
        },
      },
      securitySchemes: {
        bearerToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: "A user's access token from the configured issuer (JWT_ISSUER); its `sub` is the user.",
        },
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-SERVICE-API-Key',
          description:
            'A service API key (npm run api-key). Each key has one scope, listed by every operation that takes a key: `library` (client apps: /library push, pull, uploads, builder URLs), ' +
            '`site` (the checkout and product builder site: read and complete checkouts, resolve builder URLs), ' +
            '`catalog` (the pricing system: project prices) or `fulfilment` (order processing: order status). A key of one scope is refused (403) on the routes of the others.',
        },
      },
    },
  };
}
