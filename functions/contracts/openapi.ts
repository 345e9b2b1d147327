/** Builds the OpenAPI 3.1 document from the route table and the zod contracts (JSON Schema 2020-12). */
import * as z from 'zod/mini';
import { routes } from '../routes.ts';
import { contracts } from './registry.ts';
import { ErrorBody } from './common.ts';

type JsonSchema = Record<string, unknown>;

const schemaOf = (schema: z.ZodMiniType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

const securityOf = { none: [], user: [{ bearerToken: [] }], library: [{ apiKey: [] }], internal: [{ apiKey: [] }] } as const;

const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'A retry with the same key (same caller, route and request) within 24 h answers the first result and creates nothing new.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

export function buildOpenApi(serverUrl?: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const contract = contracts[route.handler] ?? {};
    const pathSchema = contract.path ? (schemaOf(contract.path, 'input') as { properties?: Record<string, JsonSchema> }) : undefined;
    const querySchema = contract.query ? (schemaOf(contract.query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] }) : undefined;
    const parameters = [
      ...Object.entries(pathSchema?.properties ?? {}).map(([name, schema]) => ({ name, in: 'path', required: true, schema })),
      ...Object.entries(querySchema?.properties ?? {}).map(([name, schema]) => ({ name, in: 'query', required: querySchema?.required?.includes(name) ?? false, schema })),
      ...(contract.idempotent ? [idempotencyKeyParameter] : []),
    ];
    const requestBody = contract.body
      ? { required: true, content: { 'application/json': { schema: schemaOf(contract.body, 'input') } } }
      : contract.requestContentType
        ? { required: true, content: { [contract.requestContentType]: { schema: { type: 'object' } } } }
        : undefined;
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = {
      operationId: route.handler,
      summary: route.summary,
      security: securityOf[route.credential],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses: {
        '200': { description: 'Success', content: { 'application/json': { schema: contract.response ? schemaOf(contract.response, 'output') : {} } } },
        ...(route.credential === 'none' ? {} : { '401': errorResponse('Missing or invalid credentials'), '403': errorResponse('Credential of the wrong kind or scope') }),
        '4XX': errorResponse('Refused request; nothing was changed'),
        '5XX': errorResponse('Failure; the body says whether a retry is safe'),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Photo commerce basket, order and library service', version: '1.0.0' },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    paths,
    components: {
      schemas: { Error: schemaOf(ErrorBody, 'output') },
      securitySchemes: {
        bearerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-SERVICE-API-Key' },
      },
    },
  };
}
